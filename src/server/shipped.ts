/**
 * The catalogue generated from `faces/`: what `dispatch serve` serves, with the handlers of `src/faces/`
 * and the documents the generator wrote beside them (the OpenAPI document and the markdown docs the
 * manifest lists). The documents are read next to this module's own copy of the tables (`generated/` from
 * the sources, `dist/generated/` in the compiled program), so the served OpenAPI always describes the
 * dispatch table that is enforced.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventTypes, faces } from '../../generated/server/dispatch.js';
import { handlers } from '../../generated/server/handlers.js';
import { errors, platform } from '../../generated/server/platform.js';
import { fromProgram } from '../package-root.js';
import type { Catalogue } from '../core/dispatch-types.js';

export function shippedCatalogue(): Catalogue {
  const read = (path: string) => readFileSync(join(fromProgram('generated'), path), 'utf8');
  const manifest = JSON.parse(read('manifest.json')) as { files: string[] };
  const docs = new Map(manifest.files.filter((f) => f.startsWith('docs/')).map((f) => [f.slice('docs/'.length), read(f)]));
  return {
    faces,
    eventTypes,
    platform,
    errors,
    // The generated interfaces type each handler's payload; the runtime has checked it against them.
    handlers: handlers as unknown as Catalogue['handlers'],
    documents: { openapi: read('openapi.json'), docs },
  };
}
