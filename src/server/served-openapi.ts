/**
 * `GET /openapi.json` as this server serves it: the generated document (generated/openapi.json, unchanged on
 * disk) with its `servers` entry and the address in its curl and TypeScript samples (`x-codeSamples`, which
 * `/docs` shows) made this server's: `PUBLIC_URL`, else the address it listens on. Never the request's `Host`
 * header: a cache in front would keep a document another client's header made and hand it to everyone.
 */
import type { Server } from 'node:http';
import { fixedBody, type FixedBody } from '../core/fixed-body.js';

interface Document {
  servers?: { url: string; description?: string; variables?: { origin?: { default?: string } } }[];
  paths?: Record<string, Record<string, { 'x-codeSamples'?: { source: string }[] }>>;
}

/** Hosts that mean every interface: no client calls them, so the document names this machine instead. */
const WILDCARD = new Set(['0.0.0.0', '::']);

/** `http://host:port` of a listening server, or undefined before it listens (a server answering in process). */
export function listeningOrigin(server: Server): string | undefined {
  const address = server.address();
  if (!address || typeof address === 'string') return undefined;
  const host = WILDCARD.has(address.address) ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The document with `origin` wherever the generator wrote its example server's address. */
export function withOrigin(text: string, origin: string): string {
  const doc = JSON.parse(text) as Document;
  const [server] = doc.servers ?? [];
  const written = server?.variables?.origin?.default ?? server?.url;
  if (!server || !written) return text;
  const base = origin.replace(/\/+$/, '');
  doc.servers = [{ url: base, ...(server.description ? { description: server.description } : {}) }];
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const sample of operation['x-codeSamples'] ?? []) sample.source = sample.source.replaceAll(written, base);
    }
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * The served document, made once per origin (the first request after the server listens settles it) and
 * kept with its compressed forms.
 */
export function servedOpenApi(text: string, origin: () => string | undefined): () => FixedBody {
  let made: { origin: string | undefined; body: FixedBody } | undefined;
  return () => {
    const now = origin();
    if (!made || made.origin !== now) made = { origin: now, body: fixedBody(now === undefined ? text : withOrigin(text, now)) };
    return made.body;
  };
}
