/**
 * One ajv instance per face, configured as the generated validators are (strict, all errors, defaults,
 * standalone source). Lint compiles every payload schema in it to check it; the validators emitter then
 * prints that same compiled code, so each schema is compiled once per run.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Face } from './model.js';

const instances = new WeakMap<Face, Ajv2020>();

export function faceAjv(face: Face): Ajv2020 {
  let ajv = instances.get(face);
  if (!ajv) {
    ajv = new Ajv2020({ strict: true, allErrors: true, useDefaults: true, logger: false, code: { source: true, esm: true, lines: true } });
    addFormats.default(ajv);
    instances.set(face, ajv);
  }
  return ajv;
}
