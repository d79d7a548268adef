/**
 * The editor's meta-schema of face files (`generated/editor/face.schema.json`, what yaml-language-server reads
 * from each face file's first line): every face file of the catalogue passes it, and a face file with an
 * unknown scope, version, event, error code, JSON-Schema keyword or type fails it at that place, as an editor flags it
 * while typing. Run with ajv, the validator the generator uses, on the shipped and the large catalogue.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitEditorSchema } from '../../src/generate/emit-editor-schema.js';
import { fromRoot } from '../../src/package-root.js';
import { knownKeywords } from '../../src/spec/face-ajv.js';
import { buildCatalog } from '../../src/spec/index.js';

function validator(facesDir: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(emitEditorSchema(buildCatalog(facesDir).catalog!)));
}

const faceFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.yaml') && name !== 'platform.yaml');

describe('the editor schema of face files', () => {
  it.each([
    ['the shipped catalogue', fromRoot('faces')],
    ['the large catalogue', fromRoot('test', 'fixtures', 'large', 'faces')],
  ])('accepts every face file of %s', (_name, dir) => {
    const validate = validator(dir);
    for (const name of faceFiles(dir)) {
      expect(validate(parse(readFileSync(join(dir, name), 'utf8'))) ? 'valid' : `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe('valid');
    }
  });

  it('is the committed one, and face files point at it', () => {
    expect(readFileSync(fromRoot('generated', 'editor', 'face.schema.json'), 'utf8')).toBe(emitEditorSchema(buildCatalog(fromRoot('faces')).catalog!));
    for (const name of faceFiles(fromRoot('faces'))) {
      expect(readFileSync(fromRoot('faces', name), 'utf8').split('\n')[0], name).toBe('# yaml-language-server: $schema=../generated/editor/face.schema.json');
    }
  });

  it('takes every keyword ajv takes, so that it never refuses what the generator accepts', () => {
    const validate = validator(fromRoot('faces'));
    const face = parse(readFileSync(fromRoot('faces', 'keys.yaml'), 'utf8')) as { actions: Record<string, Record<string, any>> };
    const property = face.actions.get!.payload.properties.id;
    Object.assign(property, { nullable: true, $comment: 'kept', deprecated: false, dependencies: {} });
    expect(validate(face) ? 'valid' : JSON.stringify(validate.errors?.slice(0, 2))).toBe('valid');
    const keywords = Object.keys((JSON.parse(emitEditorSchema(buildCatalog(fromRoot('faces')).catalog!)) as any).$defs.jsonSchema.properties);
    expect(keywords).toEqual(expect.arrayContaining(knownKeywords()));
  });

  it('flags an unknown scope, version, event, error code, keyword and type where they are', () => {
    const validate = validator(fromRoot('faces'));
    const face = parse(readFileSync(fromRoot('faces', 'keys.yaml'), 'utf8')) as { actions: Record<string, Record<string, any>> };
    const action = face.actions.get!;
    action.scope = 'keys:reed';
    action.since = '2026-02-30';
    action.emits = ['keys.key.gotten'];
    action.errors = ['resource_not_fund'];
    action.payload.properties.id.minLenght = 1;
    action.result = { type: 'strin' };
    expect(validate(face)).toBe(false);
    const at = new Set(validate.errors!.map((e) => e.instancePath));
    for (const path of ['/actions/get/scope', '/actions/get/since', '/actions/get/emits/0', '/actions/get/errors/0', '/actions/get/payload/properties/id', '/actions/get/result/type']) {
      expect(at, path).toContain(path);
    }
  });

  it('wants every action to say what a call does, and idempotent of a write or a destroy', () => {
    const validate = validator(fromRoot('faces'));
    const face = () => parse(readFileSync(fromRoot('faces', 'keys.yaml'), 'utf8')) as { actions: Record<string, Record<string, any>> };
    const errorsOf = (edited: ReturnType<typeof face>) => (validate(edited) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`));
    const missing = face();
    delete missing.actions.get!.effect;
    delete missing.actions.get!.external;
    delete missing.actions.revoke!.idempotent;
    expect(errorsOf(missing)).toEqual(
      expect.arrayContaining([
        '/actions/get required {"missingProperty":"effect"}',
        '/actions/get required {"missingProperty":"external"}',
        '/actions/revoke required {"missingProperty":"idempotent"}',
      ]),
    );
    const contradiction = face();
    contradiction.actions.get!.idempotent = false;
    expect(errorsOf(contradiction)).toContain('/actions/get/idempotent const {"allowedValue":true}');
  });
});
