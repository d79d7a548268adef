/**
 * `generated/server/validators/<face>.js`: ajv standalone validators, one export per distinct payload
 * schema and one per event type's data, so the server never compiles a schema at start. Defaults in the schemas are filled in.
 */
import standaloneCode from 'ajv/dist/standalone/index.js';
import { faceAjv } from '../spec/face-ajv.js';
import type { Face } from '../spec/model.js';

export const validatorsPath = (face: string) => `server/validators/${face}.js`;
export const validatorTypesPath = (face: string) => `server/validators/${face}.d.ts`;

export function emitValidators(face: Face): { code: string; types: string } {
  const ajv = faceAjv(face);
  const exports: Record<string, string> = {};
  for (const action of face.actions) {
    for (const variant of action.variants) {
      // Lint has usually compiled it already in this instance; a catalogue built otherwise is added here.
      if (!ajv.getSchema(variant.validator)) ajv.addSchema(variant.schema, variant.validator);
      exports[variant.validator] = variant.validator;
    }
  }
  for (const event of face.events) {
    if (!ajv.getSchema(event.validator)) ajv.addSchema(event.dataSchema, event.validator);
    exports[event.validator] = event.validator;
  }
  const code = esmImports(standaloneCode.default(ajv, exports));
  const names = Object.keys(exports);
  const types = [
    `import type { ValidateFunction } from 'ajv';`,
    ...names.map((n) => `export declare const ${n}: ValidateFunction;`),
    '',
  ].join('\n');
  return { code, types };
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
