/**
 * The backends handlers call. Test mode always gets a sandbox backend (no network, no cost); live mode gets
 * the configured one, or none when it is not configured (handlers then answer 503 provider_unavailable).
 */
import type { MailTransport } from './smtp.js';
import type { EmbeddingModel } from './embedding-model.js';
import type { PaymentProcessor } from './payments/processor.js';
import type { TextModel } from './text-model.js';

export interface Providers {
  ai: { test: TextModel; live?: TextModel };
  embeddings: { test: EmbeddingModel; live?: EmbeddingModel };
  payments: { test: PaymentProcessor; live?: PaymentProcessor };
  /** Live e-mail (SMTP_URL); test mode captures messages and needs none. */
  email?: { live?: MailTransport };
}
