/**
 * Mailboxes as senders write them (`ada@example.com` or `Ada Lovelace <ada@example.com>`), parsed with
 * nodemailer's own address parser so that what is checked here is what it will send; addresses are
 * compared in lower case (suppression lists, the simulator's addresses).
 */
import addressparser from 'nodemailer/lib/addressparser';
import { ApiError, invalidField } from '../runtime/errors.js';

/** A plain address: one @, something on each side, no spaces (the payload schema checks the rest). */
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** The address of one mailbox, lower case; a 400 at `param` when it is not exactly one valid address. */
export function addressOf(mailbox: string, param: string): string {
  const parsed = addressparser(mailbox, { flatten: true });
  const address = parsed.length === 1 ? parsed[0]!.address : undefined;
  if (!address || !ADDRESS.test(address)) {
    const message = `"${mailbox}" is not one e-mail address (write ada@example.com or Ada <ada@example.com>)`;
    throw invalidField(param, message, 'format');
  }
  return address.toLowerCase();
}
