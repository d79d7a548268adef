/**
 * Turns the validated YAML values into the Catalog: defaults filled in, versions sorted, scopes linked to
 * their actions, and each action's payload materialized once per distinct schema across the versions it is
 * served in. Resolution never fails: lint reports what is wrong with the result.
 */
import { basename } from 'node:path';
import { canonicalJson, materialize } from './json-schema.js';
import type { Action, ApiVersion, Catalog, Cost, Effect, EventType, Face, JsonSchema, PayloadVariant, Platform, PlatformInfo, RatePolicy, Tier, TriggerStep } from './model.js';
import { priceText } from './price.js';
import type { JsonPath, SourceFile } from './source.js';

/* The shapes below are those the meta-schemas guarantee. */
interface RawPolicy { limit: number; window: string }
interface RawPlatform {
  info?: Partial<PlatformInfo>;
  changelogUrl: string;
  errorDocsUrl: string;
  currency?: string;
  units?: Record<string, string>;
  scopes: Record<string, string>;
  tiers: Record<string, { token: RawPolicy; entity: RawPolicy; storage?: Tier['storage'] }>;
  versions: ApiVersion[];
  limits: Platform['limits'];
}
interface RawAction {
  summary: string;
  description?: string;
  title?: string;
  scope: string;
  effect?: Effect;
  idempotent?: boolean;
  external?: boolean;
  since?: string;
  until?: string;
  stream?: boolean;
  streamEvents?: Record<string, RawEvent>;
  atomic?: boolean;
  pageBy?: string;
  streamOnly?: boolean;
  cost?: RawCost;
  weight?: { perCall?: number; perItem?: Record<string, number> };
  emits?: string[];
  errors?: string[];
  rate?: Record<string, RawPolicy>;
  payload: JsonSchema;
  result: JsonSchema;
  examples?: Action['examples'];
}
export interface RawFace {
  face: string;
  summary: string;
  description?: string;
  since: string;
  builtin?: boolean;
  rate?: Record<string, RawPolicy>;
  errors?: Face['errors'];
  schemas?: Record<string, JsonSchema>;
  events?: Record<string, RawEvent>;
  actions: Record<string, RawAction>;
}
/* A price is a number or a decimal string; see price.ts for how its text is kept. */
interface RawCost { perCall?: number | string; perUnit?: Record<string, number | string> }
interface RawEvent {
  summary: string;
  description?: string;
  data: JsonSchema;
  trigger?: (Omit<TriggerStep, 'payload'> & { payload?: TriggerStep['payload'] })[];
}

const WINDOW_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

export function parseWindow(window: string): number {
  const unit = window.slice(-1) as keyof typeof WINDOW_SECONDS;
  return Number(window.slice(0, -1)) * WINDOW_SECONDS[unit];
}

const policy = (raw: RawPolicy): RatePolicy => ({ limit: raw.limit, windowSeconds: parseWindow(raw.window) });
const policies = (raw: Record<string, RawPolicy> = {}) =>
  Object.fromEntries(Object.entries(raw).map(([tier, p]) => [tier, policy(p)]));

export const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function resolvePlatform(source: SourceFile): Platform {
  const raw = source.value as RawPlatform;
  const versions = [...raw.versions].sort((a, b) => a.date.localeCompare(b.date));
  const stable = versions.filter((v) => v.status === 'stable');
  const tiers: Tier[] = Object.entries(raw.tiers).map(([name, t]) => ({
    name,
    token: policy(t.token),
    entity: policy(t.entity),
    ...(t.storage ? { storage: { objectBytes: t.storage.objectBytes, storedBytes: t.storage.storedBytes } } : {}),
  }));
  return {
    info: { ...raw.info, title: raw.info?.title ?? 'Unified Dispatch' },
    scopes: Object.entries(raw.scopes)
      .map(([name, description]) => ({ name, description, actions: [] as string[] }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    tiers,
    versions,
    latest: stable.at(-1)?.date ?? versions.at(-1)!.date,
    limits: raw.limits,
    changelogUrl: raw.changelogUrl,
    errorDocsUrl: raw.errorDocsUrl,
    currency: raw.currency ?? 'usd',
    units: Object.entries(raw.units ?? {})
      .map(([name, description]) => ({ name, description }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

export function resolveFace(source: SourceFile, platform: Platform): Face {
  const raw = source.value as RawFace;
  const named = raw.schemas ?? {};
  const typeName = pascalCase(raw.face);
  const actions = Object.entries(raw.actions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, a]): Action => {
      const since = a.since ?? raw.since;
      return {
        face: raw.face,
        name,
        id: `${raw.face}.${name}`,
        typeName: typeName + pascalCase(name),
        summary: a.summary,
        description: a.description,
        ...(a.title === undefined ? {} : { title: a.title }),
        scope: a.scope,
        // Undeclared, the cautious reading (lint refuses it, so only a lenient build sees it): a write,
        // repeated at a cost, that may reach outside.
        effect: a.effect ?? 'write',
        idempotent: a.idempotent ?? a.effect === 'read',
        external: a.external ?? true,
        since,
        until: a.until,
        stream: a.stream ?? false,
        streamOnly: a.streamOnly ?? false,
        streamEvents: Object.entries(a.streamEvents ?? {})
          .sort(([x], [y]) => x.localeCompare(y))
          .map(([eventName, e]) => ({ name: eventName, summary: e.summary, description: e.description, data: e.data, dataSchema: materialize(e.data, platform.latest, named) })),
        atomic: a.atomic ?? true,
        ...(a.pageBy ? { pageBy: a.pageBy } : {}),
        cost: cost(source, ['actions', name, 'cost'], a.cost),
        weight: { perCall: a.weight?.perCall ?? 1, perItem: a.weight?.perItem ?? {} },
        emits: [...(a.emits ?? [])].sort(),
        ...(a.errors ? { errors: [...a.errors].sort() } : {}),
        rate: policies(a.rate),
        payload: a.payload,
        result: a.result,
        examples: a.examples ?? [],
        variants: variants(raw.face, name, a.payload, named, servedVersions(platform, since, a.until)),
        resultSchema: materialize(a.result, platform.latest, named),
      };
    });
  return {
    name: raw.face,
    typeName,
    summary: raw.summary,
    description: raw.description,
    since: raw.since,
    file: basename(source.path),
    builtin: raw.builtin ?? false,
    rate: policies(raw.rate),
    errors: [...(raw.errors ?? [])].sort((a, b) => a.code.localeCompare(b.code)),
    schemas: Object.keys(named)
      .sort()
      .map((name) => ({ name, schema: named[name]! })),
    events: events(raw, actions, named, platform.latest),
    actions,
  };
}

/** The face's declared event types, each linked to the actions that emit it. */
function events(raw: RawFace, actions: Action[], named: Record<string, JsonSchema>, latest: string): EventType[] {
  return Object.entries(raw.events ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, event]) => ({
      type,
      face: raw.face,
      typeName: type.split('.').map(pascalCase).join(''),
      summary: event.summary,
      description: event.description,
      data: event.data,
      dataSchema: materialize(event.data, latest, named),
      validator: `event_${type.replace(/\./g, '_')}`,
      emittedBy: actions.filter((a) => a.emits.includes(type)).map((a) => a.id),
      ...(event.trigger ? { trigger: event.trigger.map((step) => ({ ...step, payload: step.payload ?? {} })) } : {}),
    }));
}

/** An action's prices as written in the face file; no cost at all is free. */
function cost(source: SourceFile, at: JsonPath, raw: RawCost | undefined): Cost {
  const perUnit = raw?.perUnit ?? {};
  return {
    perCall: raw?.perCall === undefined ? '0' : priceText(source, [...at, 'perCall'], raw.perCall),
    perUnit: Object.fromEntries(
      Object.keys(perUnit)
        .sort()
        .map((unit) => [unit, priceText(source, [...at, 'perUnit', unit], perUnit[unit]!)]),
    ),
  };
}

/** Versions, oldest first, that serve an action: not retired, within `since` ≤ v < `until`. */
function servedVersions(platform: Platform, since: string, until: string | undefined): string[] {
  return platform.versions
    .filter((v) => v.status !== 'retired' && v.date >= since && (!until || v.date < until))
    .map((v) => v.date);
}

/** Groups consecutive versions whose materialized payload schemas are identical. */
function variants(
  face: string,
  action: string,
  payload: JsonSchema,
  named: Record<string, JsonSchema>,
  versions: string[],
): PayloadVariant[] {
  const result: (PayloadVariant & { key: string })[] = [];
  for (const version of versions) {
    const schema = materialize(payload, version, named);
    const key = canonicalJson(schema);
    const last = result.at(-1);
    if (last && last.key === key) last.versions.push(version);
    else result.push({ key, versions: [version], schema, validator: `${face}_${action}_${version.replace(/-/g, '_')}` });
  }
  return result.map(({ key: _key, ...variant }) => variant);
}

/** Links each scope to the actions that require it. */
export function linkScopes(platform: Platform, faces: Face[]): Catalog {
  const scopes = platform.scopes.map((scope) => ({
    ...scope,
    actions: faces.flatMap((f) => f.actions.filter((a) => a.scope === scope.name).map((a) => a.id)).sort(),
  }));
  return { platform: { ...platform, scopes }, faces: [...faces].sort((a, b) => a.name.localeCompare(b.name)) };
}
