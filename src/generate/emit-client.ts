/**
 * `generated/client/`: a typed client for the latest API version. The hand-written transport in
 * `templates/client/` is copied file by file; `types.ts` holds the payload, result and webhook event types as
 * a client sends and receives them; `index.ts` adds one method per action on a `DispatchClient` (with
 * `.stream()` on streaming actions) and, for the built-in batch face, a typed `batch()` method.
 */
import type { Catalog } from '../spec/model.js';
import { CLIENT_INDEX_PATH, clientIndex } from './client-index.js';
import { batchMethod, clientFaces, type BatchMethod, type ClientFace } from './client-model.js';
import { CLIENT_PACKAGE_PATH, emitClientPackage } from './client-package.js';
import { CLIENT_README_PATH, emitClientReadme } from './client-readme.js';
import { clientTypes, CLIENT_TYPES_PATH } from './client-types.js';
import type { Formatted } from './format.js';
import { templateFiles } from './template-files.js';

export const CLIENT_RUNTIME_PATH = 'client/runtime.ts';

/** Members of the client class that a face property would shadow. */
const CLASS_MEMBERS = new Set(['batch', 'call', 'callWithMeta', 'constructor', 'list', 'stream']);
/** Names `index.ts` exports besides the re-exported runtime and types. */
const INDEX_NAMES = ['DispatchClient', 'createClient', 'API_VERSION', 'DEFAULT_TIMEOUT_MS', 'USER_AGENT'];
/** Names `types.ts` exports besides those of faces, actions and events. */
const TYPE_NAMES = ['Actions', 'ErrorCode', 'EventTypes', 'RETRYABLE_ERROR_CODES', 'WebhookEvent', 'WebhookEventOf'];
const BATCH_TYPE_NAMES = ['BatchRequest', 'BatchResultOf', 'BatchResults'];

/** The template files by name. */
const templates = () => templateFiles('client', '.ts');

/**
 * The client files, keyed by their path under `generated/`: the templates and the handler-free modules as
 * source, `types.ts` and `index.ts` laid out in chunks. Throws on a name the client could not hold.
 */
export function emitClient(catalog: Catalog): Map<string, string | Formatted[]> {
  const faces = clientFaces(catalog);
  const batch = batchMethod(faces);
  checkNames(faces, batch);
  const files = new Map<string, string | Formatted[]>();
  for (const [name, text] of templates()) files.set(`client/${name}`, text);
  files.set(CLIENT_PACKAGE_PATH, emitClientPackage(catalog.platform));
  files.set(CLIENT_README_PATH, emitClientReadme(catalog));
  files.set(CLIENT_TYPES_PATH, clientTypes(catalog, faces, batch));
  files.set(CLIENT_INDEX_PATH, clientIndex(faces, catalog.platform, batch));
  return files;
}

/**
 * Fails on names the generated modules could not hold apart: a face shadowing a client method, or two
 * exported types (or a type and a runtime export, since `index.ts` re-exports both) with one name.
 */
function checkNames(faces: ClientFace[], batch: BatchMethod | undefined): void {
  const owners = new Map<string, string>();
  const claim = (name: string, owner: string) => {
    const other = owners.get(name);
    if (other) throw new Error(`Client name clash: ${name} is both ${other} and ${owner}.`);
    owners.set(name, owner);
  };
  for (const [file, text] of templates()) {
    for (const match of text.matchAll(/^export (?:class|interface|type|function|const) (\w+)/gm)) claim(match[1]!, `an export of ${file}`);
  }
  for (const name of INDEX_NAMES) claim(name, 'a client export');
  for (const name of [...TYPE_NAMES, ...(batch ? BATCH_TYPE_NAMES : [])]) claim(name, 'a client type');
  for (const { face, actions } of faces) {
    if (!face.builtin && actions.length > 0 && CLASS_MEMBERS.has(face.name)) {
      throw new Error(`Face ${face.name} would shadow the client's ${face.name} method.`);
    }
    for (const s of face.schemas) claim(face.typeName + s.name, `schema ${s.name} of face ${face.name}`);
    for (const { action } of actions) {
      claim(`${action.typeName}Payload`, `the payload of ${action.id}`);
      claim(`${action.typeName}Result`, `the result of ${action.id}`);
      if (action.streamEvents.length) claim(`${action.typeName}StreamEvent`, `the stream events of ${action.id}`);
    }
    for (const event of face.events) claim(`${event.typeName}Data`, `the data of event ${event.type}`);
  }
}
