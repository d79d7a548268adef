/**
 * The one registry of generator diagnostics: each code has a severity, a message template and a doc
 * anchor. Every diagnostic points at a `file:line:col`, and a run collects them all before stopping.
 */

export type Severity = 'error' | 'warning';

interface DiagnosticDefinition {
  severity: Severity;
  /** Message template; `{name}` is replaced by the argument of that name. */
  message: string;
}

export const DIAGNOSTICS = {
  // The detail says what is wrong and what to write (yaml-mistakes.ts).
  'yaml-syntax': { severity: 'error', message: '{detail}' },
  'recursive-alias': { severity: 'error', message: 'Alias *{name} is inside the node its anchor &{name} names: its value would never end.' },
  'duplicate-key': { severity: 'error', message: 'Key "{key}" appears more than once in this mapping.' },
  'duplicate-action': { severity: 'error', message: 'Action "{action}" is declared more than once in this face.' },
  'duplicate-face': { severity: 'error', message: 'Face "{face}" is already declared in {other}.' },
  'face-name-mismatch': { severity: 'error', message: 'Face "{face}" must live in a file named {expected}.' },
  'reserved-face-name': { severity: 'error', message: 'Face name "{face}" is reserved: {reason}.' },
  'handler-module-missing': {
    severity: 'error',
    message:
      'Face "{face}" has no module {file}: `npx dispatch new face {face}` writes it, with a handler for each action that answers 501 until written; ' +
      'or write it exporting `const {face}: FaceModule<{type}Handlers>`, with {type}Handlers imported from generated/server/types.ts, which the next generate writes.',
  },
  'schema-violation': { severity: 'error', message: '{detail}' },
  'unknown-scope': { severity: 'error', message: 'Scope "{scope}" is not declared in platform.yaml.{hint}' },
  'unknown-tier': { severity: 'error', message: 'Tier "{tier}" is not declared in platform.yaml.{hint}' },
  'unknown-version': { severity: 'error', message: 'Version "{version}" is not declared in platform.yaml.{hint}' },
  'unknown-ref': { severity: 'error', message: 'Reference "{ref}" does not name a schema of this face.{hint}' },
  'invalid-json-schema': { severity: 'error', message: 'The {what} schema is rejected by ajv (strict): {detail}' },
  'example-mismatch': { severity: 'error', message: 'Example {index} does not match the {what} schema: {detail}' },
  'missing-example': {
    severity: 'warning',
    message: 'Action {action} has no example: its OpenAPI operation and docs page show none. Add a payload and its result under "examples".',
  },
  'invalid-event-name': {
    severity: 'error',
    message: 'Event "{event}" must have the form <face>.<action>.<outcome> and start with "{face}.".',
  },
  'weight-field-not-array': { severity: 'error', message: 'Weight field "{field}" is not a top-level array property of the payload.' },
  'unknown-event': { severity: 'error', message: 'Event "{event}" is not declared under the "events" of any face.{hint}' },
  'unused-event': { severity: 'warning', message: 'Event "{event}" is declared but no action emits it.' },
  'trigger-unknown-action': { severity: 'error', message: 'Step {index} calls "{action}", {detail}.{hint}' },
  'trigger-unknown-error': { severity: 'error', message: 'Step {index} expects {action} to answer "{code}", which it does not answer (it answers: {codes}).{hint}' },
  'trigger-step-name-taken': { severity: 'error', message: 'Step {index} is named "{name}" like step {other}: each step needs a name of its own.' },
  'trigger-reference-invalid': {
    severity: 'error',
    message: '"{text}" is not a reference: a reference is the whole string, "${step.field}", naming an earlier step and a field of its result.',
  },
  'trigger-unknown-step': { severity: 'error', message: 'Reference "{text}" names no earlier step ({earlier}).{hint}' },
  'trigger-step-without-result': { severity: 'error', message: 'Reference "{text}" names step "{step}", which answers the error {code}: it has no result to read.' },
  'trigger-unknown-field': { severity: 'error', message: 'Reference "{text}": the result of {action} has no field "{field}" there.{hint}' },
  'trigger-payload-mismatch': { severity: 'error', message: 'Step {index} does not match the payload schema of {action}: {detail}{hint}' },
  'trigger-not-emitted': { severity: 'error', message: 'No step of the fixture of {event} calls an action that emits it ({emitters}).' },
  'unknown-error-code': {
    severity: 'error',
    message: 'Error code "{code}" is declared neither under the "errors" of a face nor by the platform.{hint}',
  },
  'atomic-flag-missing': {
    severity: 'error',
    message: 'Action {action} reaches ctx.providers ({where}), a backend with effects outside the store; declare "atomic: false".',
  },
  'stream-flag-missing': {
    severity: 'error',
    message: 'Action {action} writes to ctx.stream ({where}) but is not declared "stream: true".',
  },
  'effect-missing': {
    severity: 'error',
    message:
      'Action {action} does not say what a call does: add "effect: read" (it changes nothing that lasts), "effect: write" (it creates or changes something) or "effect: destroy" (it deletes, revokes or ends something).',
  },
  'idempotent-missing': {
    severity: 'error',
    message: 'Action {action} ({effect}) does not say whether a repeat changes anything more: add "idempotent: true" (a second call with the same payload changes nothing more) or "idempotent: false".',
  },
  'external-missing': {
    severity: 'error',
    message:
      'Action {action} does not say whether it reaches outside the platform: add "external: true" (it calls a model provider, a payment processor, an SMTP server or a URL) or "external: false".',
  },
  'read-not-idempotent': {
    severity: 'error',
    message: 'Action {action} is a read, which changes nothing and so is idempotent: remove "idempotent: false", or declare "effect: write" if a call changes something.',
  },
  'tool-name-too-long': {
    severity: 'error',
    message: 'The MCP tool of {action} would be named {tool}, {length} characters; clients refuse names over {max} (docs/mcp.md § MCP tools): shorten the action\'s or the face\'s name.',
  },
  'tool-name-invalid': { severity: 'error', message: 'The MCP tool name {tool} has characters other than A-Z, a-z, 0-9, _ and -, which model APIs refuse.' },
  'tool-description-too-long': {
    severity: 'error',
    message: 'The MCP tool {tool} would be described in {length} characters; clients refuse descriptions over {max} (docs/mcp.md § MCP tools): shorten the summary and description of {action}.',
  },
  'tool-input-not-object': { severity: 'error', message: 'The input schema of the MCP tool {tool} has type {found} at its root, not "object", which MCP and the model APIs require.' },
  'tool-input-combinator': { severity: 'error', message: 'The input schema of the MCP tool {tool} keeps "{keyword}" at its root, which model APIs refuse there.' },
  'tool-schema-ref': { severity: 'error', message: 'The {which} schema of the MCP tool {tool} keeps the reference "{ref}", which many clients cannot resolve.' },
  'tool-output-not-object': { severity: 'error', message: 'The output schema of the MCP tool {tool} has type {found} at its root, not "object", which MCP requires.' },
  'stream-events-without-stream': {
    severity: 'error',
    message: 'Action {action} declares the stream event "{event}" but is not declared "stream: true".',
  },
  'version-range-empty': { severity: 'error', message: '"until" ({until}) must come after "since" ({since}).' },
  'breaking-change-notice': {
    severity: 'error',
    message: 'Version {version} {change}, a breaking change; it must be announced at least 90 days before {version} ({detail}).',
  },
  'breaking-change': {
    severity: 'error',
    message: '{change} in served {versions} ({class}); a breaking change must come in a new API version announced at least 90 days ahead.',
  },
  'no-stable-version': { severity: 'error', message: 'platform.yaml declares no stable version.' },
  'duplicate-version': { severity: 'error', message: 'Version {version} is declared more than once.' },
  'duplicate-error-code': { severity: 'error', message: 'Error code "{code}" is already defined {where}.' },
  'type-name-clash': {
    severity: 'error',
    message: 'Schema "{schema}" would be generated as {type}, which is already {other}: rename the schema.',
  },
  'unknown-unit': {
    severity: 'error',
    message: 'Unit "{unit}" is not declared under "units" in platform.yaml (declared: {declared}).',
  },
  'invalid-price': { severity: 'error', message: 'Price "{price}" {reason}.' },
  'error-type-mismatch': {
    severity: 'error',
    message: 'Error "{code}" has status {status}, whose type is "{expected}" (docs/contract.md § Errors), not "{type}".',
  },
} as const satisfies Record<string, DiagnosticDefinition>;

export type DiagnosticCode = keyof typeof DIAGNOSTICS;

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  file: string;
  line: number;
  col: number;
}

/** Builds a diagnostic from its registered template. */
export function diagnostic(
  code: DiagnosticCode,
  where: { file: string; line: number; col: number },
  args: Record<string, string | number> = {},
): Diagnostic {
  const def: DiagnosticDefinition = DIAGNOSTICS[code];
  // `{hint}` is an optional "Did you mean …?" (suggest.ts): empty when none was found.
  const message = def.message.replace(/\{(\w+)\}/g, (_, name: string) => String(args[name] ?? (name === 'hint' ? '' : `{${name}}`)));
  return { code, severity: def.severity, message, ...where };
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code} ${d.message}`;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Orders diagnostics by file and position so output is stable. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.code.localeCompare(b.code),
  );
}
