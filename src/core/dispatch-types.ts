/**
 * Shapes of the generated dispatch table (`generated/server/dispatch.ts` with its event types, `platform.ts`, `scopes.ts`),
 * which the runtime executes.
 */
import type { ApiVersion, FaceError, Limits, RatePolicy, Tier } from '../spec/model.js';

export type { ApiVersion };

/** The action the runtime serves itself rather than through a handler (the built-in `batch` face). */
export const BATCH_ACTION = 'batch.run';

export interface ActionEntry {
  /** `face.action` */
  readonly id: string;
  readonly face: string;
  readonly name: string;
  readonly scope: string;
  readonly stream: boolean;
  /** Answers only as a stream (the face file's `streamOnly`). */
  readonly streamOnly?: boolean;
  /** Names of the events of its own the action sends on its stream (`ctx.stream.event`). */
  readonly streamEvents: readonly string[];
  readonly atomic: boolean;
  /** Prices as decimal strings, exactly as the face file writes them (the generator checked them). */
  readonly cost: { readonly perCall: string; readonly perUnit: Readonly<Record<string, string>> };
  /** What one call counts for in rate limits: `perCall` plus `perItem[field]` per element of that payload array. */
  readonly weight: { readonly perCall: number; readonly perItem: Readonly<Record<string, number>> };
  readonly emits: readonly string[];
  /** Per-tier overrides for this action. */
  readonly rate: Readonly<Record<string, RatePolicy>>;
  /** The dates of the versions that serve the action (its checks hold each one's payload validator). */
  readonly versions: ReadonlySet<string>;
  /** The action's checks once routed (generated/server/pipelines/<face>.js): an export of its face's pipeline module. */
  readonly checks: GeneratedRef;
  /** The serializer of its result, in the same module (src/server/result-serializer.ts); absent where its result schema is open. */
  readonly result?: GeneratedRef;
  /**
   * The generated modules a call needs loaded: its face's pipelines and validators, and the validators of the
   * faces whose events it emits.
   */
  readonly modules: readonly GeneratedLoader[];
}

/** Imports one face's generated validators or pipelines (generated-module.ts imports each once, on first use). */
export type GeneratedLoader = () => Promise<Record<string, unknown>>;

/** An export of a generated module, by the import of its module and its name. */
export interface GeneratedRef {
  readonly module: GeneratedLoader;
  readonly name: string;
}

/** A validator by the import of its module and its export name. */
export type ValidatorRef = GeneratedRef;

export interface FaceEntry {
  readonly name: string;
  /** Served by the runtime itself (batch), not by a handler module. */
  readonly builtin: boolean;
  /** Per-tier overrides for the whole face. */
  readonly rate: Readonly<Record<string, RatePolicy>>;
  readonly actions: ReadonlyMap<string, ActionEntry>;
}

/** An event type that handlers may emit and webhook endpoints subscribe to. */
export interface EventEntry {
  /** `<face>.<noun>.<outcome>` */
  readonly type: string;
  readonly face: string;
  readonly summary: string;
  /**
   * Checks the data a handler emits, so that subscribers only ever receive what the catalogue promises;
   * loaded before any action that emits it runs (ActionEntry.modules).
   */
  readonly validator: ValidatorRef;
}

export interface PlatformData {
  readonly versions: readonly ApiVersion[];
  readonly latest: string;
  readonly limits: Limits;
  readonly tiers: readonly Tier[];
  readonly changelogUrl: string;
  readonly errorDocsUrl: string;
  /** ISO 4217 code, lower case, of every cost. */
  readonly currency: string;
}

export type ErrorDefinition = FaceError;

export interface ScopeEntry {
  readonly description: string;
  readonly actions: readonly string[];
}

