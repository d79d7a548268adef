/**
 * What sending a message came to, as the moves of its status: a mail server's answer over SMTP, or the test
 * mode's capture. Test mode never sends; like Amazon SES's mailbox simulator, two addresses choose other
 * outcomes than delivery, so that bounces, complaints and suppression can be tried without a mail server.
 */
import type { Move } from './status.js';

export const SIMULATOR = { bounce: 'bounce@simulator.dispatch.test', complaint: 'complaint@simulator.dispatch.test' } as const;

/** The moves of a captured test-mode message to `recipients` (lower case). */
export function capturedMoves(recipients: readonly string[]): Move[] {
  if (recipients.includes(SIMULATOR.bounce)) {
    return [{ status: 'bounced', detail: '550 5.1.1 The simulator bounced this address.', suppress: [SIMULATOR.bounce] }];
  }
  const delivered: Move[] = [{ status: 'sent', detail: 'Captured in test mode; nothing was sent.' }, { status: 'delivered' }];
  if (recipients.includes(SIMULATOR.complaint)) return [...delivered, { status: 'complained', detail: 'The simulator reported this message as spam.', suppress: [SIMULATOR.complaint] }];
  return delivered;
}
