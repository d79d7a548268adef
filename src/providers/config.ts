/**
 * Builds the backends from the environment. Bad settings fail at start-up, naming the variable, rather than
 * on the first live call.
 */
import { smtpTransport } from './smtp.js';
import { httpUrl } from './http-url.js';
import type { Providers } from './index.js';
import { mappedModels, TEST_MODELS, type ModelInfo } from './model-list.js';
import { openAiCompatibleModel } from './openai-compatible.js';
import { openAiCompatibleEmbeddings } from './openai-embeddings.js';
import type { OpenAiCompatibleOptions } from './openai-http.js';
import { sandboxProcessor } from './payments/sandbox.js';
import type { PaymentProcessor } from './payments/processor.js';
import { stripeSettingsFromEnv, type StripeSettings } from './payments/stripe-settings.js';
import { testEmbeddingModel } from './test-embeddings.js';
import { testTextModel } from './test-model.js';

/**
 * Reads `AI_BASE_URL`, `AI_API_KEY` and `AI_MODEL_MAP` (without `AI_BASE_URL` there is no live model, and
 * live `ai` calls answer 503 provider_unavailable), `STRIPE_API_KEY` with `STRIPE_API_BASE` for live payments,
 * and `SMTP_URL` for live e-mail.
 * @throws Error naming the variable when `AI_BASE_URL`, `AI_MODEL_MAP` or `STRIPE_API_BASE` is invalid.
 */
export function createProviders(env: NodeJS.ProcessEnv = process.env): Providers {
  const stripe = stripeSettingsFromEnv(env);
  const smtp = smtpUrl(env);
  return {
    ...aiProviders(env),
    // Without STRIPE_API_KEY there is no live processor, and live payments answer 503 provider_unavailable.
    payments: { test: sandboxProcessor, ...(stripe ? { live: lazyStripe(stripe) } : {}) },
    // Without SMTP_URL live e-mail answers 503 provider_unavailable; test mode captures messages and needs none.
    email: { ...(smtp ? { live: smtpTransport(smtp, { timeoutMs: sendTimeoutMs(env) }) } : {}) },
  };
}

/** `EMAIL_SEND_TIMEOUT_MS`: how long each stage of one SMTP send may wait (30 s). */
function sendTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.EMAIL_SEND_TIMEOUT_MS?.trim();
  if (!raw) return 30_000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`EMAIL_SEND_TIMEOUT_MS must be a whole number of milliseconds, not "${raw}".`);
  return value;
}

/** `SMTP_URL` (`smtp://…` or `smtps://…`), checked at start. */
function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.SMTP_URL?.trim();
  if (!url) return undefined;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error(`SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587, not "${url}".`);
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${protocol}//.`);
  return url;
}

/** The Stripe processor, its SDK loaded on the first live payment rather than at start (about 80 ms). */
function lazyStripe(settings: StripeSettings): PaymentProcessor {
  let loaded: Promise<PaymentProcessor> | undefined;
  const stripe = () =>
    (loaded ??= import('./payments/stripe.js').then(
      (m) => m.stripeProcessor(settings),
      (error: unknown) => {
        // A failed load is tried again by the next payment rather than kept until a restart.
        loaded = undefined;
        throw error;
      },
    ));
  return {
    confirm: async (input) => (await stripe()).confirm(input),
    capture: async (input) => (await stripe()).capture(input),
    cancel: async (input) => (await stripe()).cancel(input),
    refund: async (input) => (await stripe()).refund(input),
  };
}

/** The test model's chat and embeddings, and the OpenAI-compatible provider's when one is configured. */
function aiProviders(env: NodeJS.ProcessEnv): Pick<Providers, 'ai' | 'embeddings'> {
  const live = liveAiOptions(env);
  return {
    ai: { test: testTextModel, ...(live ? { live: openAiCompatibleModel(live) } : {}) },
    embeddings: { test: testEmbeddingModel, ...(live ? { live: openAiCompatibleEmbeddings(live) } : {}) },
  };
}

/**
 * What `ai.models` lists in each mode: the test model's names, and with a live provider the names of
 * `AI_MODEL_MAP`. A setting rather than a backend: listing them calls no provider.
 * @throws Error naming the variable when `AI_BASE_URL` or `AI_MODEL_MAP` is invalid.
 */
export function aiModelsFromEnv(env: NodeJS.ProcessEnv = process.env): { test: readonly ModelInfo[]; live?: readonly ModelInfo[] } {
  const live = liveAiOptions(env);
  return { test: TEST_MODELS, ...(live ? { live: mappedModels(live.modelMap) } : {}) };
}

/** The live provider's settings, or undefined without `AI_BASE_URL`. */
function liveAiOptions(env: NodeJS.ProcessEnv): OpenAiCompatibleOptions | undefined {
  // Checked even without a live provider, so a typo does not surface only once AI_BASE_URL is set.
  const modelMap = parseModelMap(env.AI_MODEL_MAP);
  const baseUrl = env.AI_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  httpUrl('AI_BASE_URL', baseUrl, 'https://api.openai.com/v1');
  const apiKey = env.AI_API_KEY?.trim();
  return { baseUrl, modelMap, ...(apiKey ? { apiKey } : {}) };
}

/**
 * Parses `AI_MODEL_MAP`: a JSON object (`{"fast":"gpt-4o-mini"}`) or a comma-separated list
 * (`fast=gpt-4o-mini,smart=gpt-4o`). Unset or empty means no mapping.
 * @throws Error naming `AI_MODEL_MAP` when the value is neither.
 */
export function parseModelMap(value: string | undefined): Record<string, string> {
  const text = value?.trim() ?? '';
  if (text === '') return {};
  const entries = text.startsWith('{') ? jsonEntries(text) : listEntries(text);
  const map: Record<string, string> = Object.create(null);
  for (const [name, target] of entries) {
    if (name === '' || target === '') throw invalid('model names must not be empty');
    if (Object.hasOwn(map, name)) throw invalid(`"${name}" appears twice`);
    map[name] = target;
  }
  return map;
}

function jsonEntries(text: string): Array<[string, string]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('it starts with "{" but is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('expected a JSON object');
  return Object.entries(parsed).map(([name, target]) => {
    if (typeof target !== 'string') throw invalid(`the value for "${name}" must be a string`);
    return [name.trim(), target.trim()];
  });
}

function listEntries(text: string): Array<[string, string]> {
  return text
    .split(',')
    .filter((pair) => pair.trim() !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) throw invalid(`"${pair.trim()}" is not name=model`);
      return [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
    });
}

function invalid(reason: string): Error {
  return new Error(`AI_MODEL_MAP is invalid: ${reason}. Use {"fast":"gpt-4o-mini"} or fast=gpt-4o-mini,smart=gpt-4o.`);
}
