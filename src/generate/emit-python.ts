/**
 * `generated/python/`: the Python SDK, the package `unified_dispatch` with its `pyproject.toml` and README. The
 * hand-written runtime in `templates/python/` (transport, retries, errors, streams, pages, webhooks) is copied
 * file by file; the models, the faces' methods and the clients are generated from the catalogue, for the latest
 * API version, as the TypeScript client is.
 */
import { catalogErrors, retryableErrorCodes } from '../spec/action-errors.js';
import { materialize } from '../spec/json-schema.js';
import type { Action, Catalog, JsonSchema } from '../spec/model.js';
import { batchMethod, clientFaces, servedFaces, withoutDefs, type ClientFace } from './client-model.js';
import { clientPackageOf } from './client-package.js';
import { docstring, pyString } from './python-names.js';
import { printActionEvents, printCommonEvents } from './python-events.js';
import { ParamPrinter } from './python-params.js';
import { emitPythonReadme } from './python-readme.js';
import { faceClass, faceModule, faceModuleText } from './python-resources.js';
import { ModelPrinter } from './python-types.js';
import { templateFiles } from './template-files.js';

export const PYTHON_DIR = 'python';
export const PYTHON_PACKAGE = 'unified_dispatch';
const PACKAGE_DIR = `${PYTHON_DIR}/${PYTHON_PACKAGE}`;

/** Attributes of the clients that a face would shadow. */
const CLIENT_MEMBERS = new Set(['api_key', 'api_version', 'base_url', 'batch', 'call', 'close', 'default_headers', 'entity', 'max_retries', 'timeout', 'with_raw_response']);

/** The runtime's files by name. */
const templates = () => templateFiles('python', '.py');

/** The package's files, keyed by their path under `generated/`. */
export function emitPython(catalog: Catalog): Map<string, string> {
  const faces = clientFaces(catalog);
  const batch = batchMethod(faces);
  const served = servedFaces(faces);
  for (const { face } of served) {
    if (CLIENT_MEMBERS.has(faceModule(face))) throw new Error(`Face ${face.name} would shadow the Python client's ${faceModule(face)}.`);
  }
  const webhooksFace = served.find(({ face }) => faceModule(face) === 'webhooks');
  if (webhooksFace?.actions.some(({ action }) => ['unwrap', 'generate_test_headers'].includes(action.name))) {
    throw new Error('The webhooks face has an action named like the Python client\'s webhooks.unwrap or generate_test_headers.');
  }
  const models = modelsModule(catalog, faces);
  const files = new Map<string, string>();
  for (const [name, text] of templates()) files.set(`${PACKAGE_DIR}/${name}`, text);
  files.set(`${PYTHON_DIR}/pyproject.toml`, pyproject(catalog));
  files.set(`${PYTHON_DIR}/README.md`, emitPythonReadme(catalog));
  files.set(`${PACKAGE_DIR}/py.typed`, '');
  files.set(`${PACKAGE_DIR}/_version.py`, versionModule(catalog));
  files.set(`${PACKAGE_DIR}/_error_codes.py`, errorCodesModule(catalog));
  files.set(`${PACKAGE_DIR}/models.py`, models.text);
  files.set(`${PACKAGE_DIR}/resources/__init__.py`, `${docstring('The faces of the client, a module each.', '').join('\n')}\n`);
  const params = new ParamPrinter();
  for (const { face, actions } of served) {
    files.set(`${PACKAGE_DIR}/resources/${faceModule(face)}.py`, faceModuleText(face, actions, models.itemType, params, face === webhooksFace?.face));
  }
  files.set(`${PACKAGE_DIR}/params.py`, paramsModule(params));
  files.set(`${PACKAGE_DIR}/_client.py`, clientModule(catalog, served, Boolean(batch)));
  files.set(`${PACKAGE_DIR}/__init__.py`, initModule(catalog));
  return files;
}

/** The package's version: the API version it was generated for, as the npm client's (`2027-03-01` → `2027.3.1`). */
const packageVersion = (catalog: Catalog) => clientPackageOf(catalog.platform).version;

function pyproject(catalog: Catalog): string {
  const { info, latest } = catalog.platform;
  const license = info.license?.identifier ?? info.license?.name;
  return [
    '[build-system]',
    'requires = ["setuptools>=61"]',
    'build-backend = "setuptools.build_meta"',
    '',
    '[project]',
    'name = "unified_dispatch"',
    `version = ${pyString(packageVersion(catalog))}`,
    `description = ${pyString(`Typed Python client of ${info.title}, API version ${latest}: one method per action, typed errors, streams, pages and webhooks.`)}`,
    'readme = "README.md"',
    'requires-python = ">=3.10"',
    ...(license ? [`license = { text = ${pyString(license)} }`] : []),
    'dependencies = ["httpx>=0.23,<1", "pydantic>=1.10,<3"]',
    '',
    '[tool.setuptools]',
    `packages = ["${PYTHON_PACKAGE}", "${PYTHON_PACKAGE}.resources"]`,
    '',
    '[tool.setuptools.package-data]',
    `${PYTHON_PACKAGE} = ["py.typed"]`,
    '',
  ].join('\n');
}

function versionModule(catalog: Catalog): string {
  const { latest, limits } = catalog.platform;
  return [
    ...docstring('The versions this package was generated for, and its default time-out.', ''),
    '',
    '#: The package version: the API version it was generated for, as a version number.',
    `VERSION = ${pyString(packageVersion(catalog))}`,
    '#: The API version sent as `X-API-Version` unless a client or call names another.',
    `API_VERSION = ${pyString(latest)}`,
    `#: Seconds a client waits for an answer unless told otherwise: the server's longest time-out (${limits.timeout.max} ms)`,
    "#: plus 5 seconds, so that the server's own `timeout` error comes first.",
    `DEFAULT_TIMEOUT = ${(limits.timeout.max + 5000) / 1000}`,
    '',
  ].join('\n');
}

function errorCodesModule(catalog: Catalog): string {
  const codes = [...new Set(catalogErrors(catalog).map((e) => e.code))].sort();
  return [
    ...docstring("Every error code the API answers with (the platform's and the faces', as the error catalogue in the docs\nlists them), and those a retry can succeed for.", ''),
    'from typing import FrozenSet, Literal',
    '',
    'ErrorCode = Literal[',
    ...codes.map((code) => `    ${pyString(code)},`),
    ']',
    '',
    '#: The codes a retry of the same request can succeed for: the client retries these (and any 429).',
    'RETRYABLE_CODES: FrozenSet[str] = frozenset(',
    '    {',
    ...retryableErrorCodes(catalog).map((code) => `        ${pyString(code)},`),
    '    }',
    ')',
    '',
  ].join('\n');
}

/** models.py: every face's named schemas, its actions' results and its events' data, and the maps of both. */
function modelsModule(catalog: Catalog, faces: ClientFace[]): { text: string; itemType: (action: Action) => string } {
  const latest = catalog.platform.latest;
  const blocks: string[] = [];
  const results: string[] = [];
  const events: string[] = [];
  const items = new Map<string, string>();
  const common = new ModelPrinter({}, (name) => name);
  printCommonEvents(common);
  blocks.push(`# The events of every stream.\n\n\n${common.blocks.join('\n\n\n')}`);
  for (const { face, actions } of faces) {
    const named = Object.fromEntries(face.schemas.map((s) => [s.name, withoutDefs(materialize(s.schema, latest, Object.fromEntries(face.schemas.map((n) => [n.name, n.schema]))))]));
    const printer = new ModelPrinter(named, (name) => face.typeName + name);
    for (const { name } of face.schemas) printer.namedSchema(name);
    for (const { action } of actions) {
      const result = withoutDefs(action.resultSchema);
      printer.declare(`${action.typeName}Result`, result, [`Result of \`${action.id}\`.`]);
      const itemsSchema = ((result.properties as Record<string, JsonSchema> | undefined)?.items as JsonSchema | undefined)?.items;
      items.set(action.id, itemsSchema === undefined ? 'Any' : printer.typeOf(itemsSchema, `${action.typeName}Item`));
      if (!face.builtin) results.push(`    ${pyString(action.id)}: ${action.typeName}Result,`);
      if (action.stream) printActionEvents(printer, action);
    }
    for (const event of face.events) {
      printer.declare(`${event.typeName}Data`, withoutDefs(event.dataSchema), [`Data of the \`${event.type}\` event: ${event.summary.trim()}`]);
      events.push(`    ${pyString(event.type)}: ${event.typeName}Data,`);
    }
    if (printer.blocks.length) blocks.push(`# The ${face.name} face.\n\n\n${printer.blocks.join('\n\n\n')}`);
  }
  const text = [
    ...docstring(
      'The results of the actions, the events of their streams and the data of the webhook events, as pydantic models\n' +
        "(1.10 or 2.x): a field has its snake_case name and is filled from the wire's camelCase; `to_dict()` gives the\n" +
        "wire's form back.",
      '',
    ),
    'from typing import Any, Dict, List, Literal, Optional, Tuple, Union',
    '',
    'from pydantic import Field',
    '',
    'from ._models import BaseModel',
    '',
    '',
    blocks.join('\n\n\n'),
    '',
    '',
    '#: The result model of every action by `face.action`: what `client.batch()` reads each result into.',
    'ACTION_RESULTS: Dict[str, Any] = {',
    ...results,
    '}',
    '',
    '#: The data model of every webhook event type: what `webhooks.unwrap` reads an event\'s data into.',
    'EVENT_DATA: Dict[str, Any] = {',
    ...events,
    '}',
    '',
  ].join('\n');
  return { text, itemType: (action) => items.get(action.id) ?? 'Any' };
}

/** params.py: the payloads' nested objects as `TypedDict`s, which the faces' methods take. */
function paramsModule(params: ParamPrinter): string {
  return [
    ...docstring(
      "The nested objects of the payloads, as `TypedDict`s with the wire's keys (camelCase, as sent): what a method's\n" +
        'keyword argument that takes an object accepts, so a type checker refuses a misspelt or missing key.',
      '',
    ),
    'from typing import Any, List, Literal, Mapping, Optional, TypedDict, Union',
    ...(params.blocks.length ? ['', '', params.blocks.join('\n\n\n')] : []),
    '',
  ].join('\n');
}

/** _client.py: `Client` and `AsyncClient`, one attribute per face, `batch()`, and `with_raw_response`. */
function clientModule(catalog: Catalog, served: ClientFace[], batch: boolean): string {
  const { latest } = catalog.platform;
  const imports = served.map(({ face }) => {
    const cls = faceClass(face);
    return `from .resources.${faceModule(face)} import Async${cls}, Async${cls}WithRawResponse, ${cls}, ${cls}WithRawResponse`;
  });
  const client = (async: boolean) => {
    const prefix = async ? 'Async' : '';
    const http = async ? 'httpx.AsyncClient' : 'httpx.Client';
    const raw = async ? 'to_async_raw_response' : 'to_raw_response';
    const batchDocs =
      'Sends several calls in one request, in order, and returns one `BatchItemResult` per request: its `data` (read\n' +
      'into the model of its action\'s result) or its `error`. `mode="bestEffort"` (the default) runs each request on\n' +
      'its own; `mode="atomic"` runs all or nothing and raises `DispatchError` (code `batch_aborted`, with\n' +
      '`details["results"]`) if one fails. Each request is `{"face", "action", "payload"}` with the wire\'s keys.';
    return [
      `class ${prefix}Client(${prefix ? 'AsyncAPIClient' : 'SyncAPIClient'}):`,
      ...docstring(
        `A ${async ? 'asyncio ' : ''}client of \`POST /do\` for API version ${latest}: one attribute per face, one method per action.\n\n` +
          '`api_key` is a secret key (`sk_live_…` or `sk_test_…`), `entity` the entity every call acts for (`X-Entity-ID`).\n' +
          '`timeout` is how long it waits for an answer, in seconds (`None`: no limit); `max_retries` how often a call\n' +
          'that failed for a passing reason is retried.',
        '    ',
      ),
      '',
      ...served.flatMap(({ face }) => [`    ${faceModule(face)}: ${prefix}${faceClass(face)}`, ...docstring(face.summary, '    ')]),
      `    with_raw_response: "${prefix}ClientWithRawResponse"`,
      '    """The same methods, each returning a `RawResponse`: the data with the status, headers and request id."""',
      '',
      '    def __init__(',
      '        self,',
      '        *,',
      '        api_key: str,',
      '        entity: str,',
      '        base_url: Optional[str] = None,',
      '        api_version: Optional[str] = None,',
      '        timeout: Optional[float] = DEFAULT_TIMEOUT,',
      '        max_retries: int = DEFAULT_MAX_RETRIES,',
      '        default_headers: Optional[Mapping[str, str]] = None,',
      `        http_client: Optional[${http}] = None,`,
      '    ) -> None:',
      '        super().__init__(',
      ...['api_key', 'entity', 'base_url', 'api_version', 'timeout', 'max_retries', 'default_headers', 'http_client'].map((n) => `            ${n}=${n},`),
      '        )',
      ...served.map(({ face }) => `        self.${faceModule(face)} = ${prefix}${faceClass(face)}(self)`),
      `        self.with_raw_response = ${prefix}ClientWithRawResponse(self)`,
      ...(batch
        ? [
            '',
            `    ${async ? 'async def' : 'def'} batch(`,
            '        self,',
            '        requests: Sequence[BatchRequest],',
            '        *,',
            '        mode: BatchMode = "bestEffort",',
            '        options: Optional[RequestOptions] = None,',
            '    ) -> List[BatchItemResult]:',
            ...docstring(batchDocs, '        '),
            `        return ${async ? 'await ' : ''}self._batch(requests, mode, ACTION_RESULTS, options)`,
          ]
        : []),
      '',
      '',
      `class ${prefix}ClientWithRawResponse:`,
      `    """\`${prefix}Client\`'s methods, each returning a \`RawResponse\`."""`,
      '',
      `    def __init__(self, client: ${prefix}Client) -> None:`,
      ...served.map(({ face }) => `        self.${faceModule(face)} = ${prefix}${faceClass(face)}WithRawResponse(client.${faceModule(face)})`),
      ...(batch ? [`        self.batch = ${raw}(client.batch)`] : []),
    ];
  };
  return [
    ...docstring('`Client` and `AsyncClient`: one attribute per face, whose methods call its actions.', ''),
    'from typing import List, Mapping, Optional, Sequence',
    '',
    'import httpx',
    '',
    'from ._base_client import (',
    ...['DEFAULT_MAX_RETRIES', 'AsyncAPIClient', 'BatchItemResult', 'BatchMode', 'BatchRequest', 'RequestOptions', 'SyncAPIClient', 'to_async_raw_response', 'to_raw_response'].map((n) => `    ${n},`),
    ')',
    'from ._version import DEFAULT_TIMEOUT',
    'from .models import ACTION_RESULTS',
    ...imports,
    '',
    '',
    ...client(false),
    '',
    '',
    ...client(true),
    '',
  ].join('\n');
}

/**
 * __init__.py. The modules that send requests need httpx; the models, the webhooks and the rest do not, so the
 * package imports those at once and the transport's names on first use (PEP 562): `unified_dispatch.models` and
 * `unwrap` work where httpx is not installed (a webhook receiver, a worker that reads stored results).
 */
function initModule(catalog: Catalog): string {
  const exported: [module: string, names: string[], transport: boolean][] = [
    ['._base_client', ['NOT_GIVEN', 'USER_AGENT', 'BatchItemResult', 'BatchRequest', 'NotGiven', 'RawResponse', 'RequestOptions'], true],
    ['._client', ['AsyncClient', 'Client'], true],
    ['._error_codes', ['ErrorCode', 'RETRYABLE_CODES'], false],
    [
      '._errors',
      ['APIConnectionError', 'ActionTimeoutError', 'AuthenticationError', 'BatchError', 'DispatchError', 'IdempotencyError', 'InvalidRequestError', 'NotFoundError', 'PaymentError', 'PermissionDeniedError', 'ProviderError', 'RateLimitError', 'ServerError'],
      true,
    ],
    ['._pagination', ['AsyncPage', 'AsyncPager', 'SyncPage'], false],
    ['._streaming', ['AsyncStream', 'Stream'], true],
    ['._version', ['API_VERSION', 'DEFAULT_TIMEOUT', 'VERSION'], false],
    ['._webhooks', ['WebhookEvent', 'WebhookVerificationError', 'generate_test_headers', 'unwrap'], false],
    ['.models', ['StreamEvent'], false],
  ];
  const names = exported.flatMap(([, n]) => n).concat('models', 'params').sort();
  const imports = (transport: boolean, indent: string) =>
    exported.filter(([, , t]) => t === transport).map(([module, n]) => `${indent}from ${module} import ${n.join(', ')}`);
  return [
    ...docstring(
      `The Python client of ${catalog.platform.info.title}: \`Client\` and \`AsyncClient\`, their errors, models, streams, pages and webhooks.\n\n` +
        'The names of the transport (the clients, their errors and streams) are imported when first used, so the models\n' +
        'and the webhooks work without httpx installed.',
      '',
    ),
    'import importlib',
    'from typing import TYPE_CHECKING, Any',
    '',
    'from . import models, params',
    ...imports(false, ''),
    '',
    'if TYPE_CHECKING:',
    ...imports(true, '    '),
    '',
    '#: The module of each name imported on first use.',
    '_TRANSPORT = {',
    ...exported.filter(([, , t]) => t).flatMap(([module, n]) => n.map((name) => `    ${pyString(name)}: ${pyString(module)},`)),
    '}',
    '',
    '',
    'def __getattr__(name: str) -> Any:',
    '    module = _TRANSPORT.get(name)',
    '    if module is None:',
    '        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
    '    value = getattr(importlib.import_module(module, __name__), name)',
    '    globals()[name] = value',
    '    return value',
    '',
    '',
    '__all__ = [',
    ...names.map((n) => `    ${pyString(n)},`),
    ']',
    '',
  ].join('\n');
}
