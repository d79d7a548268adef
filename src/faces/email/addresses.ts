/**
 * Mailboxes as senders write them (`ada@example.com` or `Ada Lovelace <ada@example.com>`), parsed with
 * nodemailer's own address parser so that what is checked here is what it will send; addresses are
 * compared in lower case (suppression lists, the simulator's addresses).
 */
import addressparser from 'nodemailer/lib/addressparser';
import { invalidField } from '../../core/errors.js';

/** A plain address: one @, something on each side, no spaces (the payload schema checks the rest). */
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
/** Line breaks and other control characters, which no mailbox holds. */
const CONTROL = /[\x00-\x1f\x7f]/;

/** The address of one mailbox, lower case; a 400 at `param` when it is not exactly one valid address. */
export function addressOf(mailbox: string, param: string): string {
  // Not flattened: a group (`Friends: a@example.com, b@example.com;`, or an address, a line break and
  // `Bcc: b@example.com`) is one entry whose members are other addresses, refused as two addresses are.
  const parsed = CONTROL.test(mailbox) ? [] : addressparser(mailbox);
  const only = parsed.length === 1 ? parsed[0]! : undefined;
  const address = only && 'address' in only ? only.address : undefined;
  if (!address || !ADDRESS.test(address)) {
    const message = `"${mailbox}" is not one e-mail address (write ada@example.com or Ada <ada@example.com>)`;
    throw invalidField(param, message, 'format');
  }
  return address.toLowerCase();
}

/** The addresses a stored mailbox names, lower case (it was checked by addressOf when its message was made). */
export function storedAddresses(mailbox: string): string[] {
  return addressparser(mailbox, { flatten: true }).map((a) => a.address.toLowerCase());
}
