/**
 * A catalogue generated outside the repository (scratch-catalogue.ts), loaded to be served: its generated
 * tables compiled to JavaScript (`generated/server/dispatch.js`, `platform.js`, `scopes.js` and the
 * validators they import on a face's first call), and a module per face whose handlers answer each action's
 * example result (`results.json`). The bench's catalogue server and the tests that serve such a catalogue in
 * process both load it here. Only light imports: the catalogue server is bundled with this module, and its
 * start is what the scale section times.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyHandler } from '../src/core/context.js';
import type { Catalogue } from '../src/core/catalogue.js';
import type { EventEntry, FaceEntry } from '../src/core/dispatch-types.js';
import type { AnyFaceModule } from '../src/core/face-module.js';
import type { McpToolsFile } from '../src/spec/mcp/tool-types.js';

export interface LoadOptions {
  /**
   * Also reads the generated MCP tools (`generated/mcp/tools.json`), so that the catalogue is served at
   * `/mcp`. Off by default: the large catalogue's tools are 1.5 MB of JSON, which the scale section's
   * first-200 timing leaves out as it always has.
   */
  mcp?: boolean;
}

export async function loadCatalogue(dir: string, options: LoadOptions = {}): Promise<Catalogue> {
  const load = (path: string) => import(pathToFileURL(join(dir, 'generated', 'server', path)).href);
  const [tables, { platform, errors }, { scopes }, results, mcp] = await Promise.all([
    load('dispatch.js'),
    load('platform.js'),
    load('scopes.js'),
    readFile(join(dir, 'results.json'), 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>),
    options.mcp ? readFile(join(dir, 'generated', 'mcp', 'tools.json'), 'utf8').then((text) => JSON.parse(text) as McpToolsFile) : undefined,
  ]);
  const faces = tables.faces as ReadonlyMap<string, FaceEntry>;
  const modules: AnyFaceModule[] = [...faces.values()]
    .filter((face) => !face.builtin)
    .map((face) => ({ face: face.name, handlers: Object.fromEntries([...face.actions.values()].map((a): [string, AnyHandler] => [a.name, async () => results[a.id] ?? {}])) }));
  return { faces, eventTypes: tables.eventTypes as ReadonlyMap<string, EventEntry>, platform, scopes, errors, modules, ...(mcp ? { mcp } : {}) };
}
