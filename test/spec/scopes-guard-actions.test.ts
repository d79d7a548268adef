/**
 * Every scope faces/platform.yaml declares guards at least one action of the shipped catalogue: a scope
 * that guards nothing is a promise a key can be given and nothing keeps.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { faces } from '../../generated/server/dispatch.js';

it('finds an action behind every scope of platform.yaml', () => {
  const platform = parse(readFileSync(new URL('../../faces/platform.yaml', import.meta.url), 'utf8')) as { scopes: Record<string, string> };
  const declared = Object.keys(platform.scopes);
  const guarded = new Set([...faces.values()].flatMap((face) => [...face.actions.values()].map((action) => action.scope)));
  expect(declared.length).toBe(28);
  expect(declared.filter((scope) => !guarded.has(scope))).toEqual([]);
});
