/**
 * Rate limits (API.md §8): every call is checked at once against every policy that applies to it — the
 * key's tier per token and per entity, and the face's and action's overrides for that tier — and a
 * refused call consumes nothing. The state of the policies is reported on every response.
 */
import { faces } from '../../../generated/server/dispatch.js';
import { platform } from '../../../generated/server/platform.js';
import type { RatePolicy, Tier } from '../../spec/model.js';
import type { CallState, RuntimeDeps } from '../call.js';
import { BATCH_ACTION } from '../dispatch-types.js';
import { ApiError } from '../errors.js';
import { policyHeader, rateLimitHeader, type PolicyCheck, type RateDecision } from '../rate-limit/limiter.js';
import { RateLimiterUnavailableError } from '../rate-limit/redis.js';

const tiers = new Map(platform.tiers.map((t) => [t.name, t]));
// A key whose tier was removed from platform.yaml falls back to the lowest tier rather than to none.
const lowestTier = platform.tiers[0]!;

const policy = (name: string, key: string, p: RatePolicy): PolicyCheck => ({ name, key, limit: p.limit, windowSeconds: p.windowSeconds });

/**
 * The policies that apply to a call, most general first. The entity's bucket is per tier too: keys of
 * different tiers acting for one entity each get their tier's entity quota.
 */
export function policiesFor(call: CallState): PolicyCheck[] {
  const key = call.key!;
  const action = call.action!;
  const tier: Tier = tiers.get(key.tier) ?? lowestTier;
  const checks = [policy('token', `token:${key.id}`, tier.token), policy('entity', `entity:${tier.name}:${call.mode}:${call.entityId}`, tier.entity)];
  const faceRate = faces.get(action.face)?.rate[tier.name];
  if (faceRate) checks.push(policy(`face-${action.face}`, `face:${action.face}:${key.id}`, faceRate));
  const actionRate = action.rate[tier.name];
  if (actionRate) checks.push(policy(`action-${action.id}`, `action:${action.id}:${key.id}`, actionRate));
  return checks;
}

export async function rateLimit(call: CallState, deps: RuntimeDeps): Promise<void> {
  // A batch is counted by its requests, each as its own call (src/runtime/batch.ts), not by its envelope.
  if (call.action!.id === BATCH_ACTION) return;
  const decision = await decide(deps, policiesFor(call));
  reportPolicies(call, decision);
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', `Rate limit exceeded (${decision.violated.join(', ')}); retry in ${decision.retryAfterSeconds} s.`, {
      details: { violatedPolicies: decision.violated },
      headers: retryAfter(decision),
    });
  }
}

/** Checks policies all at once; a limiter that cannot be reached in `refuse` mode is 503. */
export async function decide(deps: RuntimeDeps, policies: PolicyCheck[]): Promise<RateDecision> {
  try {
    return await deps.limiter.check(policies);
  } catch (error) {
    if (error instanceof RateLimiterUnavailableError) {
      throw new ApiError('provider_unavailable', 'Rate limits cannot be checked right now; retry shortly.', { headers: { 'Retry-After': '1' } });
    }
    throw error;
  }
}

/**
 * Puts the state of the policies in the call's response headers. A policy checked several times (the token
 * policy of every request of a batch) is shown once, as it stands after the last.
 */
export function reportPolicies(call: CallState, decision: RateDecision): void {
  const policies = [...new Map(decision.policies.map((p) => [p.name, p])).values()];
  if (policies.length === 0) return;
  call.responseHeaders['RateLimit-Policy'] = policyHeader(policies);
  call.responseHeaders['RateLimit'] = rateLimitHeader(policies);
}

export const retryAfter = (decision: RateDecision) => ({ 'Retry-After': String(decision.retryAfterSeconds) });
