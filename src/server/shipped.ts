/**
 * The catalogue generated from `faces/`: what `dispatch serve` serves, with the face modules of `src/faces/`
 * and the files the generator wrote beside them (the MCP tools, the OpenAPI document and the markdown
 * docs the manifest lists). The documents are read next to this module's own copy of the tables (`generated/` from
 * the sources, `dist/generated/` in the compiled program), so the served OpenAPI and MCP tools always
 * describe the dispatch table that is enforced.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventTypes, faces } from '../../generated/server/dispatch.js';
import { modules } from '../../generated/server/modules.js';
import { errors, platform } from '../../generated/server/platform.js';
import { scopes } from '../../generated/server/scopes.js';
import { fromProgram } from '../package-root.js';
import { openStore, type StoreConfig } from '../store/open.js';
import type { Db } from '../store/schema.js';
import type { Catalogue } from '../core/catalogue.js';
import type { McpToolsFile } from '../spec/mcp/tool-types.js';
import { moduleMigrations, type ModuleMigration } from '../core/face-module.js';

export function shippedCatalogue(): Catalogue {
  const read = (path: string) => readFileSync(join(fromProgram('generated'), path), 'utf8');
  const manifest = JSON.parse(read('manifest.json')) as { files: string[] };
  const docs = new Map(manifest.files.filter((f) => f.startsWith('docs/')).map((f) => [f.slice('docs/'.length), read(f)]));
  return {
    faces,
    eventTypes,
    platform,
    scopes,
    errors,
    modules: Object.values(modules),
    mcp: JSON.parse(read('mcp/tools.json')) as McpToolsFile,
    documents: { openapi: read('openapi.json'), docs },
  };
}

/** Opens a store to serve the shipped catalogue: migrated with the core's migrations and the shipped modules'. */
export function openShippedStore(where: Omit<StoreConfig, 'migrations'>): Promise<Db> {
  return openStore({ ...where, migrations: shippedMigrations() });
}

/** The migrations of the shipped modules: what a store that serves the shipped catalogue runs besides the core's. */
export function shippedMigrations(): ModuleMigration[] {
  return moduleMigrations(Object.values(modules));
}
