/**
 * Rate limits (docs/contract.md § Rate limits): every call is checked at once against every policy that applies to it — the
 * key's tier per token and per entity, and the face's and action's overrides for that tier — and a
 * refused call consumes nothing. The state of the policies is reported on every response. A batch is counted by
 * its requests, each as its own call (src/server/batch.ts), not by its envelope: its generated checks leave
 * this stage out.
 */
import type { RatePolicy, Tier } from '../../spec/model.js';
import type { KeyRecord } from '../../store/keys.js';
import { assertRouted, type CallState, type RoutedCall } from '../call.js';
import type { Stage } from '../stage.js';
import type { ActionEntry, PlatformData } from '../../core/dispatch-types.js';
import { ApiError } from '../../core/errors.js';
import { policyHeader, rateLimitHeader, type PolicyCheck, type PolicyState, type RateDecision } from '../rate-limit/limiter.js';
import { RateLimiterUnavailableError } from '../rate-limit/limiter.js';
import type { Runtime } from '../runtime.js';

const tierTables = new WeakMap<PlatformData, Map<string, Tier>>();

/** The key's tier; a key whose tier was removed from platform.yaml falls back to the lowest rather than to none. */
function tierOf(platform: PlatformData, name: string): Tier {
  let tiers = tierTables.get(platform);
  if (!tiers) tierTables.set(platform, (tiers = new Map(platform.tiers.map((t) => [t.name, t]))));
  return tiers.get(name) ?? platform.tiers[0]!;
}

const policy = (name: string, key: string, p: RatePolicy): PolicyCheck => ({ name, key, limit: p.limit, windowSeconds: p.windowSeconds });

/**
 * The policies of each key, action and entity, made once rather than for every call: by the key's record (a
 * record the store changed starts afresh; key-cache.ts keeps an unchanged one) and the action (of one
 * catalogue), at most ENTITIES_KEPT entities each. Nothing changes a policy once made.
 */
const checksKept = new WeakMap<KeyRecord, WeakMap<ActionEntry, Map<string, readonly PolicyCheck[]>>>();
const ENTITIES_KEPT = 1_000;

/**
 * The policies that apply to a call, most general first. The entity's bucket is per tier too: keys of
 * different tiers acting for one entity each get their tier's entity quota.
 */
export function policiesFor(call: RoutedCall, runtime: Runtime): readonly PolicyCheck[] {
  let byAction = checksKept.get(call.key);
  if (!byAction) checksKept.set(call.key, (byAction = new WeakMap()));
  let byEntity = byAction.get(call.action);
  if (!byEntity) byAction.set(call.action, (byEntity = new Map()));
  let checks = byEntity.get(call.entityId);
  if (!checks) {
    if (byEntity.size >= ENTITIES_KEPT) byEntity.clear();
    byEntity.set(call.entityId, (checks = makePolicies(call, runtime)));
  }
  return checks;
}

function makePolicies(call: RoutedCall, runtime: Runtime): PolicyCheck[] {
  const { key, action } = call;
  const tier = tierOf(runtime.catalogue.platform, key.tier);
  const checks = [policy('token', `token:${key.id}`, tier.token), policy('entity', `entity:${tier.name}:${call.mode}:${call.entityId}`, tier.entity)];
  const faceRate = runtime.catalogue.faces.get(action.face)?.rate[tier.name];
  if (faceRate) checks.push(policy(`face-${action.face}`, `face:${action.face}:${key.id}`, faceRate));
  const actionRate = action.rate[tier.name];
  if (actionRate) checks.push(policy(`action-${action.id}`, `action:${action.id}:${key.id}`, actionRate));
  return checks;
}

export const rateLimit: Stage = (call, runtime) => {
  assertRouted(call);
  const policies = policiesFor(call, runtime);
  const weight = weightOf(call, policies);
  // The requests of an atomic batch are charged together, all or nothing, once every one is checked: a
  // bucket listed n times is charged n times. Listing a bucket more than its limit times cannot change the
  // answer (the batch needs more than a whole window and is refused), so it stops there: the check stays of
  // bounded size however heavy the batch.
  const collected = call.item?.atomicLimits;
  if (collected) {
    for (const policy of policies) {
      const listed = collected.reduce((n, p) => n + (p.key === policy.key ? 1 : 0), 0);
      for (let i = 0; i < Math.min(weight, policy.limit + 1 - listed); i++) collected.push(policy);
    }
    return;
  }
  const decision = decide(runtime, policies, weight);
  if (decision instanceof Promise) return decision.then((decided) => admit(call, decided, policies));
  admit(call, decision, policies);
};

/** Reports the policies (`checked`) on the call, and refuses it when they do. */
function admit(call: CallState, decision: RateDecision, checked: readonly PolicyCheck[]): void {
  reportPolicies(call, decision, checked);
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', `Rate limit exceeded (${decision.violated.join(', ')}); retry in ${decision.retryAfterSeconds} s.`, {
      details: { violatedPolicies: decision.violated },
      headers: retryAfter(decision),
    });
  }
}

/**
 * Checks policies all at once (at once in memory, with a promise on Redis); a limiter that cannot be
 * reached in `refuse` mode is 503.
 */
export function decide(runtime: Runtime, policies: readonly PolicyCheck[], weight = 1): RateDecision | Promise<RateDecision> {
  const decision = runtime.limiter.check(policies, weight);
  return decision instanceof Promise ? decision.catch(unavailable) : decision;
}

function unavailable(error: unknown): never {
  if (error instanceof RateLimiterUnavailableError) {
    throw new ApiError('provider_unavailable', 'Rate limits cannot be checked right now; retry shortly.', { headers: { 'Retry-After': '1' } });
  }
  throw error;
}

/**
 * What a call counts for: its action's weight (face file `weight`) for this payload, rounded up. A call
 * never counts for more than its tightest policy's whole limit, so the heaviest call still passes once the
 * window is fresh instead of never.
 */
export function weightOf(call: RoutedCall, policies: readonly PolicyCheck[]): number {
  const { perCall, perItem } = call.action.weight;
  let weight = perCall;
  for (const field in perItem) {
    // Checked before validation (docs/contract.md § Pipeline): a field that is not an array counts for nothing here.
    const items = call.envelope.payload[field];
    if (Array.isArray(items)) weight += perItem[field]! * items.length;
  }
  if (weight === 1) return 1;
  let cap = Infinity;
  for (const p of policies) cap = Math.min(cap, p.limit);
  return Math.min(Math.ceil(weight), cap);
}

/** `RateLimit-Policy` of each call's policies (policiesFor), which it names whatever their state. */
const policyHeaders = new WeakMap<readonly PolicyCheck[], string>();

/**
 * Puts the state of the policies in the call's response headers. A policy checked several times (the token
 * policy of every request of a batch) is shown once, as it stands after the last. `checked`: a call's own
 * policies (each named once), whose `RateLimit-Policy` is made once.
 */
export function reportPolicies(call: CallState, decision: RateDecision, checked?: readonly PolicyCheck[]): void {
  let policies = decision.policies;
  if (policies.length === 0) return;
  if (checked) {
    let header = policyHeaders.get(checked);
    if (header === undefined) policyHeaders.set(checked, (header = policyHeader(policies)));
    call.responseHeaders['RateLimit-Policy'] = header;
  } else {
    if (mayRepeatNames(policies)) policies = [...new Map(policies.map((p) => [p.name, p])).values()];
    call.responseHeaders['RateLimit-Policy'] = policyHeader(policies);
  }
  call.responseHeaders['RateLimit'] = rateLimitHeader(policies);
}

/**
 * False when no policy is named twice, as in a call's own check, which then needs no copy; the requests of
 * an atomic batch repeat them (and a long list is not searched, only deduplicated).
 */
function mayRepeatNames(policies: readonly PolicyState[]): boolean {
  if (policies.length > 8) return true;
  for (let i = 1; i < policies.length; i++) for (let j = 0; j < i; j++) if (policies[i]!.name === policies[j]!.name) return true;
  return false;
}

export const retryAfter = (decision: RateDecision) => ({ 'Retry-After': String(decision.retryAfterSeconds) });
