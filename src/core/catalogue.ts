/**
 * A catalogue: what one server serves, the generated tables of one set of face files with the modules of
 * its faces.
 */
import type { ErrorDefinition, EventEntry, FaceEntry, PlatformData, ScopeEntry } from './dispatch-types.js';
import type { McpToolsFile } from '../spec/mcp/tool-types.js';
import type { AnyFaceModule } from './face-module.js';

/**
 * What one server serves: the tables the generator emitted for one set of face files, and the modules of
 * its faces. `buildServer` takes it as a parameter, so a server can serve any catalogue (tests serve
 * fixtures) and nothing in the runtime imports `generated/`.
 */
export interface Catalogue {
  readonly faces: ReadonlyMap<string, FaceEntry>;
  readonly eventTypes: ReadonlyMap<string, EventEntry>;
  readonly platform: PlatformData;
  /** Every scope a key may hold, and the actions it allows. */
  readonly scopes: ReadonlyMap<string, ScopeEntry>;
  /** Every error code: the platform's and those the faces declare. */
  readonly errors: ReadonlyMap<string, ErrorDefinition>;
  /** The module of every face that is not built in: its handlers, tables, background work and routes. */
  readonly modules: readonly AnyFaceModule[];
  /** The actions as MCP tools, served at `/mcp` when given. */
  readonly mcp?: McpToolsFile;
  /** Served at `/openapi.json` (with the server's address) and `/docs/*` (as markdown and as pages), when given. */
  readonly documents?: { readonly openapi: string; readonly docs: ReadonlyMap<string, string> };
}
