/**
 * The client emitter's handling of built-in faces and names: the batch face becomes `client.batch()`
 * (not a face property, and not a batch request), every template file is copied, an unknown built-in face
 * or a face shadowing a client method is refused, and so are two event types with one data type name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { printStructure, StructureKind } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { emitClient } from '../../src/generate/emit-client.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { Catalog } from '../../src/spec/model.js';

const catalog = buildCatalog(new URL('../../faces/', import.meta.url).pathname).catalog!;
const variant = (edit: (c: Catalog) => void) => {
  const copy = structuredClone(catalog) as Catalog;
  edit(copy);
  return copy;
};

describe('emitClient', () => {
  const files = emitClient(catalog);

  it('copies every template file and turns the batch face into a method', () => {
    const templates = readdirSync(new URL('../../templates/client/', import.meta.url)).sort();
    for (const name of templates) {
      expect(files.get(`client/${name}`)).toBe(readFileSync(new URL(`../../templates/client/${name}`, import.meta.url), 'utf8'));
    }
    // Large files come in chunks of statements (one per face), printed and formatted one by one by generate().
    const text = (path: string) => {
      const emitted = files.get(path)!;
      if (typeof emitted === 'string') return emitted;
      return emitted.map((chunk) => ('formatted' in chunk ? chunk.formatted : printStructure({ kind: StructureKind.SourceFile, statements: chunk }))).join('\n');
    };
    const index = text('client/index.ts');
    expect(index).toContain('batch<const R extends readonly BatchRequest[]>(');
    expect(index).not.toMatch(/readonly batch\b/);
    const types = text('client/types.ts');
    // Printed before formatting, so quotes may be either kind.
    expect(types).toMatch(/face: ["']auth["']; action: ["']signup["']/);
    expect(types).not.toMatch(/face: ["']batch["']/);
    expect(types).toMatch(/["']auth\.signup\.succeeded["']: AuthSignupSucceededData;/);
  });

  it('refuses a built-in face it has no method for', () => {
    const other = variant((c) => {
      c.faces.find((f) => f.name === 'keys')!.builtin = true;
    });
    expect(() => emitClient(other)).toThrow(/no method for built-in face keys/);
  });

  it('refuses a face that would shadow a client method', () => {
    const shadowing = variant((c) => {
      const keys = c.faces.find((f) => f.name === 'keys')!;
      keys.name = 'stream';
      keys.typeName = 'Stream';
    });
    expect(() => emitClient(shadowing)).toThrow(/Face stream would shadow the client's stream method/);
  });

  it('refuses two event types with one data type name', () => {
    const clashing = variant((c) => {
      const auth = c.faces.find((f) => f.name === 'auth')!;
      auth.events.push({ ...auth.events[0]!, type: 'auth.sign.upSucceeded', typeName: 'AuthSignupSucceeded' });
    });
    expect(() => emitClient(clashing)).toThrow(/Client name clash: AuthSignupSucceededData/);
  });
});
