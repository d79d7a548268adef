/**
 * The generated server tables type-check against the runtime's shapes for a catalogue other than the
 * shipped one (which `npm run typecheck` covers): the `notes` fixture (a face-level and an action-level
 * rate, versions, events, streams, face errors) beside a second face without a rate, so that the faces of
 * the table differ in shape. Checked in memory with ts-morph: nothing is written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/generate/index.js';
import { buildCatalog } from '../../src/spec/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
// Beside generated/, so that the tables' imports of ../../src/core resolve to the real modules.
const CHECKED = join(ROOT, 'generated-notes-check');

const PINS = `face: pins
summary: Pins on notes.
since: 2026-01-01
actions:
  add:
    summary: Pin a note.
    scope: notes:write
    effect: write
    idempotent: true
    external: false
    payload: { type: object, required: [id], additionalProperties: false, properties: { id: { type: string, description: Note id. } } }
    result: { type: object, required: [id], properties: { id: { type: string, description: Note id. } } }
    examples:
      - payload: { id: note_1 }
        result: { id: note_1 }
`;

describe('generated server tables', () => {
  it('type-check for the notes fixture, face-level rate included', async () => {
    const dir = join(ROOT, 'test/fixtures/notes/faces');
    const sources = new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
    sources.set('pins.yaml', PINS);
    const { catalog, diagnostics: problems } = buildCatalog(dir, { files: sources });
    expect(problems.filter((d) => d.severity === 'error')).toEqual([]);
    const files = await generate(catalog!);
    const project = new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
    // types.ts is left out: its handler contexts are typed by the shipped catalogue's events.
    const checked = ['server/dispatch.ts', 'server/platform.ts', 'server/scopes.ts', 'server/validators/notes.d.ts', 'server/validators/pins.d.ts', 'server/pipelines/notes.d.ts', 'server/pipelines/pins.d.ts'];
    for (const path of checked) project.createSourceFile(join(CHECKED, path), files.get(path)!, { overwrite: true });
    const diagnostics = project
      .getPreEmitDiagnostics()
      .filter((d) => d.getSourceFile()?.getFilePath().startsWith(CHECKED))
      .map((d) => {
        const text = d.getMessageText();
        return `${d.getSourceFile()?.getBaseName()}: ${(typeof text === 'string' ? text : text.getMessageText()).slice(0, 200)}`;
      });
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
