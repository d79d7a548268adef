/**
 * `npm run bench [-- http|outbox|usage|usage-stage|payments|email|templates|storage|generator|scale|mcp ...]`: the named sections, or all of them in that order.
 * - http: the real server against the bare node:http floor, bare Fastify and the server a team would write by
 *   hand instead in the same run (req/s, p99, server CPU per request, their ratio to the floor and ours to the
 *   hand-written server's), writing bench/results/http.json;
 * - outbox: what writing an event adds to a call, and webhook deliveries per second against raw POSTs;
 * - usage: the pipeline row with the usage stage on and off, `usage.ingest` events/s, and `usage.summary`
 *   over a month of a million records, on SQLite and PostgreSQL, writing bench/results/usage.json;
 * - usage-stage: the usage stage alone, fed calls at a steady rate in a process without HTTP, in CPU µs a
 *   record (every thread and the main thread), writing bench/results/usage-stage.json;
 * - payments: payment intents per second (`payments.createIntent`, created and confirmed in one call on the
 *   test-mode sandbox) beside the pipeline row on the same servers, on SQLite and PostgreSQL + Redis (intents/s,
 *   p99, intents/s ÷ pipeline req/s), writing bench/results/payments.json;
 * - email: `email.send` in test mode the same way, writing bench/results/email.json;
 * - templates: `/healthz` on fresh connections, idle and while clients send a hostile e-mail template (which
 *   must be refused by its render budget), writing bench/results/templates.json;
 * - storage: `storage.put` of 64 KiB inline the same way (files under the data directory), writing
 *   bench/results/storage.json;
 * - generator: `dispatch generate` (memo cold and warm), `check`, `check --full` and a watch run after one
 *   saved face, on the shipped faces and on the large catalogue (test/fixtures/large: 42 faces, 276 actions);
 * - scale: a server over the large catalogue, from process start to its first 200, and its throughput beside
 *   a catalogue of one face;
 * - mcp: one tool call over Streamable HTTP (`POST /mcp`, `tools/call`) beside the same call over `POST /do`
 *   (req/s, p99, their ratio), and the size of `tools/list` in tokens for the shipped faces and the large
 *   catalogue, every tool listed and as the meta tools, writing bench/results/mcp.json.
 * Targets (DESIGN.md): throughput ≥ 80% of the floor, p99 ≤ 2× the floor's; generator full run ≤ 3 s,
 * check and a watch run ≤ 0.5 s for 276 actions; a server over them answers within 250 ms of its start, at
 * ≥ 95% of a small catalogue's throughput; the usage stage costs ≤ 5% of throughput, a summary takes ≤ 50 ms.
 */

// Imported on demand, so that a section runs without loading (or being broken by) another's modules.
const sections: Record<string, () => Promise<void>> = {
  http: async () => (await import('./http-bench.js')).httpBench(),
  outbox: async () => (await import('./outbox.js')).outbox(),
  usage: async () => (await import('./usage.js')).usage(),
  'usage-stage': async () => (await import('./usage-stage.js')).usageStage(),
  payments: async () => (await import('./payments.js')).payments(),
  email: async () => (await import('./email.js')).email(),
  templates: async () => (await import('./templates.js')).templates(),
  storage: async () => (await import('./storage.js')).storage(),
  generator: async () => (await import('./generator.js')).generator(),
  scale: async () => (await import('./scale.js')).scale(),
  mcp: async () => (await import('./mcp.js')).mcp(),
};

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in sections));
if (unknown.length > 0) {
  console.error(`Unknown section ${unknown.join(', ')}; sections are ${Object.keys(sections).join(', ')}.`);
  process.exit(2);
}
for (const name of asked.length > 0 ? asked : Object.keys(sections)) await sections[name]!();
