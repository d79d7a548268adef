/**
 * The face language's own meta-schemas (`schemas/*.json`), read from the sources: plain JSON, the same file
 * whether the generator runs from `src/` or from the compiled program, whose chunks have no `schemas/` beside them.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../package-root.js';

export const META_SCHEMAS_DIR = fromRoot('src', 'spec', 'schemas');

export function readMetaSchema(name: 'face.schema.json' | 'platform.schema.json'): object {
  return JSON.parse(readFileSync(`${META_SCHEMAS_DIR}/${name}`, 'utf8')) as object;
}
