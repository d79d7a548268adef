/**
 * `generated/server/validators/<face>.js`: ajv standalone validators, one export per distinct payload
 * schema and one per event type's data, so the server never compiles a schema at start. Defaults in the schemas are filled in.
 */
import standaloneCode from 'ajv/dist/standalone/index.js';
import { memo } from '../memo/memo.js';
import { faceValidators } from '../spec/face-ajv.js';
import type { Face } from '../spec/model.js';
import type { Formatted } from './format.js';

export const validatorsPath = (face: string) => `server/validators/${face}.js`;
export const validatorTypesPath = (face: string) => `server/validators/${face}.d.ts`;

/**
 * The validators' code, as ajv prints it, and their declarations, written as they are: one line each, which
 * has nowhere to break.
 */
export function emitValidators(face: Face): { code: string; types: Formatted[] } {
  const names = [...face.actions.flatMap((a) => a.variants.map((v) => v.validator)), ...face.events.map((e) => e.validator)];
  const schemas = [...face.actions.flatMap((a) => a.variants.map((v) => v.schema)), ...face.events.map((e) => e.dataSchema)];
  // The printed code depends on these schemas under these names and nothing else (see faceValidators).
  const { code, types } = memo('validators', { names, schemas }, () => {
    const { ajv, refused } = faceValidators(face);
    const [error] = refused.values();
    if (error) throw error;
    const code = esmImports(standaloneCode.default(ajv, Object.fromEntries(names.map((n) => [n, n]))));
    const types = [`import type { ValidateFunction } from 'ajv';`, ...names.map((n) => `export declare const ${n}: ValidateFunction;`), ''].join('\n');
    return { code, types };
  });
  return { code, types: [{ formatted: types }] };
}

/**
 * ajv's ESM output still `require`s its runtime helpers (CommonJS modules). A local `require` loads them
 * exactly as ajv expects, whatever ESM-to-CommonJS interop the importer applies.
 */
function esmImports(code: string): string {
  const body = code.replace(/^"use strict";/, '');
  if (!body.includes('require(')) return body;
  return [`import { createRequire } from 'node:module';`, 'const require = createRequire(import.meta.url);', body].join('\n');
}
