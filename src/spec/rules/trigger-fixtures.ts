/**
 * Rules over the fixtures of events (`trigger:`, what `dispatch trigger` runs), over the whole catalogue since
 * a step may call any face's action. Each step calls an action the latest version serves (the version of the
 * served document, which `dispatch trigger`'s calls name); the error it expects is one that action answers; a
 * reference (`"${name.field}"`) names an earlier step that answers a result and a field that result has; the
 * payload is valid for the action once each reference is replaced by a stand-in for its value (the field's
 * value in an example of the referenced action, else a value of the field's type); and some step's action
 * emits the event. Each problem is reported where it is written, with what may have been meant.
 */
import type { ErrorObject } from 'ajv';
import { memo } from '../../memo/memo.js';
import { actionErrorCodes } from '../action-errors.js';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.js';
import { faceValidators } from '../face-ajv.js';
import { payloadIn } from '../json-schema.js';
import type { Action, EventType, Face, PayloadVariant, Platform, TriggerStep } from '../model.js';
import { fieldNames, schemasAt } from '../schema-at.js';
import type { JsonPath, SourceFile } from '../source.js';
import { suggestion } from '../suggest.js';
import { referencesIn, setAt, valueAt, type ReferenceText } from '../trigger-reference.js';

interface Called {
  face: Face;
  action: Action;
}

/** What a payload's check needs of one ajv error: where, what broke, and the values it names. */
type PayloadError = Pick<ErrorObject, 'instancePath' | 'keyword' | 'message' | 'params'>;

/** One step's payload to check against its action's schema, the references' stand-ins in place. */
interface PayloadCheck {
  index: number;
  called: Called;
  variant: PayloadVariant;
  value: Record<string, unknown>;
  standIns: StandIn[];
  at: (path: (string | number)[], key?: boolean) => { file: string; line: number; col: number };
}

/** A reference with the value put in its place for the payload's check. */
interface StandIn {
  path: (string | number)[];
  text: string;
  value: unknown;
  /**
   * What the payload's check can say of it: all (an example shows the value), its type (the result schema
   * gives only that), or nothing (the schema gives no type either).
   */
  checks: 'value' | 'type' | 'nothing';
  /** What the value is, for a message: `a value like "cus_01…"`, `of type integer`. */
  shown: string;
}

export function triggerFixtures(faces: readonly { face: Face; source: SourceFile }[], platform: Platform): Diagnostic[] {
  const actions = new Map(faces.flatMap(({ face }) => face.actions.map((action) => [action.id, { face, action }] as const)));
  return faces.flatMap(({ face, source }) => face.events.flatMap((event) => (event.trigger ? fixture(event, event.trigger, source, actions, platform.latest) : [])));
}

function fixture(event: EventType, steps: TriggerStep[], source: SourceFile, actions: Map<string, Called>, latest: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const base: JsonPath = ['events', event.type, 'trigger'];
  const served = [...actions.values()].filter(({ action }) => payloadIn(action, latest)).map(({ action }) => action.id);
  /** The steps so far, by name, with the action each called (absent when it names none served). */
  const named = new Map<string, { index: number; step: TriggerStep; called?: Called }>();
  const checks: PayloadCheck[] = [];
  let emitted = false;
  steps.forEach((step, i) => {
    const at = (...path: JsonPath) => source.at([...base, i, ...path]);
    const index = i + 1;
    const called = actions.get(step.call);
    const payload = called && payloadIn(called.action, latest);
    if (!payload) {
      const detail = called ? `which version ${latest} does not serve` : 'which no face declares';
      out.push(diagnostic('trigger-unknown-action', at('call'), { index, action: step.call, detail, hint: suggestion(step.call, served) }));
    }
    if (called && step.error !== undefined) {
      const codes = actionErrorCodes(called.face, called.action);
      if (!codes.includes(step.error)) {
        out.push(diagnostic('trigger-unknown-error', at('error'), { index, action: step.call, code: step.error, codes: codes.join(', ') || 'none', hint: suggestion(step.error, codes) }));
      }
    }
    const standIns: StandIn[] = [];
    // A payload with a reference that cannot be read is checked no further: the reference is what to fix.
    let readable = true;
    for (const text of referencesIn(step.payload)) {
      const problem = referenceProblem(text, named);
      if (problem) out.push(diagnostic(problem.code, at('payload', ...text.path), problem.args));
      const producer = named.get(text.reference?.step ?? '')?.called;
      if (!problem && producer) standIns.push(standIn(text, producer.action));
      else readable = false;
    }
    if (payload && readable) {
      const value = structuredClone(step.payload);
      for (const s of standIns) setAt(value, s.path, s.value);
      const variant = called!.action.variants.find((v) => v.versions.includes(latest))!;
      checks.push({ index, called: called!, variant, value, standIns, at: (path, key) => source.at([...base, i, 'payload', ...path], key) });
    }
    if (called?.action.emits.includes(event.type)) emitted = true;
    if (step.name !== undefined) {
      const other = named.get(step.name);
      if (other) out.push(diagnostic('trigger-step-name-taken', at('name'), { index, name: step.name, other: other.index }));
      else named.set(step.name, { index, step, ...(payload ? { called } : {}) });
    }
  });
  const answers = validated(event.type, checks);
  checks.forEach((check, n) => out.push(...payloadProblem(check, answers[n]!)));
  if (!emitted) {
    const emitters = event.emittedBy.length ? `it is emitted by ${event.emittedBy.join(', ')}` : 'no action emits it';
    out.push(diagnostic('trigger-not-emitted', source.at(base, true), { event: event.type, emitters }));
  }
  return out;
}

/** What is wrong with a string holding `${`, or undefined when it is a reference that can be read. */
function referenceProblem(text: ReferenceText, named: Map<string, { index: number; step: TriggerStep; called?: Called }>): { code: DiagnosticCode; args: Record<string, string> } | undefined {
  const ref = text.reference;
  if (!ref) return { code: 'trigger-reference-invalid', args: { text: text.text } };
  const earlier = named.get(ref.step);
  if (!earlier) {
    const names = [...named.keys()];
    const listed = names.length ? `the earlier steps named are ${names.join(', ')}` : 'no earlier step has a name';
    return { code: 'trigger-unknown-step', args: { text: text.text, earlier: listed, hint: suggestion(ref.step, names) } };
  }
  if (earlier.step.error !== undefined) return { code: 'trigger-step-without-result', args: { text: text.text, step: ref.step, code: earlier.step.error } };
  // A step whose call names no served action is reported as such; its result cannot be read either.
  if (!earlier.called) return undefined;
  const result = earlier.called.action.resultSchema;
  for (let depth = 1; depth <= ref.path.length; depth++) {
    if (schemasAt(result, ref.path.slice(0, depth)).length === 0) {
      const field = ref.path[depth - 1]!;
      const hint = suggestion(field, fieldNames(schemasAt(result, ref.path.slice(0, depth - 1))));
      return { code: 'trigger-unknown-field', args: { text: text.text, action: earlier.called.action.id, field, hint } };
    }
  }
  return undefined;
}

/** The value a reference stands for in the payload's check: the field as an example shows it, else one of its type. */
function standIn(text: ReferenceText, producer: Action): StandIn {
  const path = text.reference!.path;
  for (const example of producer.examples) {
    const value = valueAt(example.result, path);
    if (value !== undefined) return { path: text.path, text: text.text, value, checks: 'value', shown: `a value like ${JSON.stringify(value)}` };
  }
  const schemas = schemasAt(producer.resultSchema, path);
  const typed = schemas.map((s) => (Array.isArray(s.type) ? s.type[0] : s.type)).find((t): t is string => typeof t === 'string');
  const values: Record<string, unknown> = { string: '', integer: 0, number: 0, boolean: false, object: {}, array: [], null: null };
  if (typed === undefined) return { path: text.path, text: text.text, value: '', checks: 'nothing', shown: 'of any type' };
  return { path: text.path, text: text.text, value: values[typed], checks: 'type', shown: `of type ${typed}` };
}

/**
 * A payload's problem, from ajv's errors for it: the deepest (the most precise), at the field it names. At a
 * stand-in known only by its type, only its type counts.
 */
function payloadProblem({ index, called, variant, value, standIns, at }: PayloadCheck, found: PayloadError[]): Diagnostic[] {
  const errors = found.filter((error) => {
    const path = pathOf(error.instancePath);
    const under = standIns.find((s) => s.path.every((segment, i) => String(segment) === path[i]));
    return !under || under.checks === 'value' || (under.checks === 'type' && error.keyword === 'type');
  });
  if (errors.length === 0) return [];
  const error = errors.reduce((deepest, e) => (pathOf(e.instancePath).length > pathOf(deepest.instancePath).length ? e : deepest));
  const path = pathOf(error.instancePath);
  const where = `/payload${error.instancePath}`;
  const args = { index, action: called.action.id };
  if (error.keyword === 'additionalProperties') {
    const field = String((error.params as { additionalProperty: string }).additionalProperty);
    const hint = suggestion(field, fieldNames(schemasAt(variant.schema, path)));
    return [diagnostic('trigger-payload-mismatch', at([...path, field], true), { ...args, detail: `${where} has no field "${field}".`, hint })];
  }
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const written = valueAt(value, path);
  const hint = allowed && typeof written === 'string' ? suggestion(written, allowed.map(String)) : '';
  const stood = standIns.find((s) => s.path.length === path.length && s.path.every((segment, i) => String(segment) === path[i]));
  const standsFor = stood ? ` ("${stood.text}" is ${stood.shown})` : '';
  const detail = `${where} ${error.message ?? 'is invalid'}${allowed ? `: ${allowed.join(', ')}` : ''}${standsFor}.`;
  return [diagnostic('trigger-payload-mismatch', at(path, error.keyword === 'required'), { ...args, detail, hint })];
}

/**
 * ajv's errors for each payload of an event's fixture: by the faces' compiled validators (those the server's are
 * printed from), asked only when the memo has not kept the answer, since compiling a face costs more than the
 * rest of this rule. One entry per event, so that a run never asks the memo twice for the same key.
 */
function validated(event: string, checks: PayloadCheck[]): PayloadError[][] {
  const key = { event, checks: checks.map(({ variant, value }) => ({ schema: variant.schema, value })) };
  return memo('trigger-payloads', key, () =>
    checks.map(({ called, variant, value }) => {
      const validate = faceValidators(called.face).ajv.getSchema(variant.validator);
      // A schema ajv refused is reported by lint at the action; there is nothing to check against.
      if (!validate || validate(structuredClone(value))) return [];
      return (validate.errors ?? []).map(({ instancePath, keyword, message, params }) => ({ instancePath, keyword, message, params }));
    }),
  );
}

const pathOf = (pointer: string) => (pointer ? pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : []);
