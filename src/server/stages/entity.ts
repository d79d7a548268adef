/**
 * The entity: `X-Entity-ID` names who the call acts for, and the key must be allowed to act for it.
 * Every record is partitioned by (mode, entity), so this check is what keeps entities apart.
 */
import { header, invariant } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';
import { coversEntity } from '../../core/grants.js';

export const ENTITY_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export const entity: Stage = (call) => {
  invariant(call.key, 'the key is known');
  const id = header(call, 'x-entity-id');
  if (id === undefined || id === '') throw new ApiError('entity_missing', 'Send the entity the call acts for as X-Entity-ID.');
  if (!ENTITY_PATTERN.test(id)) throw new ApiError('entity_invalid', 'X-Entity-ID must be 1 to 64 characters of A-Z a-z 0-9 . _ : -');
  if (!coversEntity(call.key.entities, id)) throw new ApiError('entity_forbidden', `This API key may not act for entity "${id}".`);
  call.entityId = id;
};
