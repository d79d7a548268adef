/**
 * The MCP section (docs/contract.md § Agents (MCP)):
 * - one tool call over Streamable HTTP, a stateless `POST /mcp` carrying a JSON-RPC `tools/call` of
 *   `ai_generate` (the test model, no progress token, so not streamed), beside the same call over `POST /do`
 *   (the pipeline row), on the same server (real-server.ts, embedded), in alternating rounds: req/s, p99,
 *   the server's CPU per request, and MCP ÷ `/do`, which is what the protocol costs per call;
 * - the size of `tools/list` for a key that may call everything, in tokens by the estimate of
 *   bench/mcp-tokens.ts, for the shipped faces and the large catalogue, in both modes: every tool listed (a
 *   server whose limit is above the catalogue's size) and the meta tools (the default limit, 40).
 * The table is also written to bench/results/mcp.json.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { emitMcpTools } from '../src/generate/emit-mcp.js';
import { fromRoot } from '../src/package-root.js';
import { DEFAULT_MCP_TOOL_LIMIT } from '../src/server/server.js';
import { buildCatalog } from '../src/spec/index.js';
import type { McpToolsFile } from '../src/spec/mcp/tool-types.js';
import { CONNECTIONS, doTarget, PIPELINE_CALL, startChild, type LoadOptions, type Started } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { estimateTokens, toolListText } from './mcp-tokens.js';
import { writeResults } from './results-file.js';
import { mediansOf, runRounds, warnings, type Medians, type Row } from './rounds.js';
import { LARGE } from './scratch-catalogue.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = 3;
const TOOL = `${PIPELINE_CALL.face}_${PIPELINE_CALL.action}`;
const toolCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: PIPELINE_CALL.payload } };

/** `tools/call` over `POST /mcp` on a real server, spread over its keys as the `/do` row is. */
function mcpTarget(server: Started): Omit<LoadOptions, 'seconds'> {
  const { headers } = doTarget(server, []);
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    bodies: [JSON.stringify(toolCall)],
    // Streamable HTTP: a client must accept both a JSON answer and a stream of events.
    headers: headers.map((h) => ({ ...h, accept: 'application/json, text/event-stream' })),
  };
}

/** A 200 is not yet a tool result: a JSON-RPC error and an error result both answer 200. */
async function checkSample(target: Omit<LoadOptions, 'seconds'>): Promise<string | undefined> {
  const response = await fetch(target.url, { method: 'POST', headers: { ...target.headers[0], 'content-type': 'application/json' }, body: target.bodies[0] });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? text;
  const message = JSON.parse(data) as { result?: { isError?: boolean; structuredContent?: { text?: string } }; error?: unknown };
  if (response.status === 200 && message.result && !message.result.isError && typeof message.result.structuredContent?.text === 'string') return undefined;
  return `a sample tools/call answered ${response.status}: ${text.slice(0, 300)}`;
}

function toolListSizes(): { catalogue: string; tools: number; mode: string; characters: number; tokens: number }[] {
  const large = buildCatalog(LARGE).catalog;
  if (!large) throw new Error('The large catalogue does not build.');
  const catalogues: [string, McpToolsFile][] = [
    ['shipped faces', JSON.parse(readFileSync(fromRoot('generated', 'mcp', 'tools.json'), 'utf8')) as McpToolsFile],
    ['large catalogue', JSON.parse(emitMcpTools(large)) as McpToolsFile],
  ];
  return catalogues.flatMap(([catalogue, file]) =>
    [
      { mode: 'every tool listed', limit: Number.POSITIVE_INFINITY },
      { mode: `meta tools (limit ${DEFAULT_MCP_TOOL_LIMIT})`, limit: DEFAULT_MCP_TOOL_LIMIT },
    ].map(({ mode, limit }) => {
      const text = toolListText(file, ['*'], limit);
      return { catalogue, tools: file.tools.length, mode, characters: text.length, tokens: estimateTokens(text) };
    }),
  );
}

export async function mcp(): Promise<void> {
  // Other work may share the machine: the figures are read beside its load.
  const machine = { cores: cpus().length, loadAverage: loadavg().map((l) => Number(l.toFixed(2))) };
  console.log(`\nMCP section on ${machine.cores} cores, load average ${machine.loadAverage.join(' / ')} (1 / 5 / 15 min) at its start`);
  const server = await startChild('./real-server.ts');
  let calls: { name: string; median: Medians }[];
  try {
    const rows: Row[] = [
      { name: `POST /do ${PIPELINE_CALL.face}.${PIPELINE_CALL.action}`, server, options: doTarget(server, [PIPELINE_CALL]) },
      { name: `POST /mcp tools/call ${TOOL}`, server, options: mcpTarget(server) },
    ];
    const wrong = await checkSample(rows[1]!.options);
    if (wrong) throw new Error(`MCP: ${wrong}`);
    const rounds = await runRounds(rows, { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    calls = rows.map((row) => ({ name: row.name, median: mediansOf(rounds.get(row)!) }));
    console.log(`\nMCP: one tool call against the same call over POST /do, one server (embedded), ${CONNECTIONS} connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.table(
      Object.fromEntries(calls.map(({ name, median: m }) => [name, { 'req/s': Math.round(m.requestsPerSecond), 'p99 ms': m.p99, 'cpu µs/req': Math.round(m.cpuMicrosPerRequest) }])),
    );
    const [rest, tool] = calls.map((c) => c.median) as [Medians, Medians];
    console.log(
      `MCP ÷ /do: req/s ${(tool.requestsPerSecond / rest.requestsPerSecond).toFixed(2)}, p99 ${(tool.p99 / Math.max(rest.p99, 1)).toFixed(2)}, CPU per request ${(tool.cpuMicrosPerRequest / rest.cpuMicrosPerRequest).toFixed(2)}`,
    );
    warnings(rows, rounds);
  } finally {
    await server.stop();
  }

  const sizes = toolListSizes();
  console.log(`\ntools/list for a key that may call every tool: its result's JSON text, tokens at 4 characters a token`);
  console.table(Object.fromEntries(sizes.map((s) => [`${s.catalogue} (${s.tools} tools), ${s.mode}`, { characters: s.characters, tokens: s.tokens }])));

  writeResults('mcp', {
    machine,
    settings: { seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, keys: BENCH_KEYS, tool: TOOL },
    calls,
    toolList: sizes,
  });
}
