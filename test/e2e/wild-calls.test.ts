/**
 * The real-call corpus through the built agent, end to end: for each case of
 * `test/fixtures/wild-calls/`, a session of the spawned CLI (stdio, full-access mode) with the
 * case's tools — built-ins where the case's tool is ours (its name and parameters), otherwise an
 * MCP server offering the case's tools under their JSON Schemas and recording what it receives
 * (the SDK's Streamable HTTP server transport on loopback, in this process: one spawn fewer per
 * case; the stdio transport has its own e2e in tools-mcp.test.ts) — and a loopback model that streams the case's recorded answer, then says "done.".
 * Each case must be carried out with exactly the arguments meant (strings byte for byte, numbers,
 * booleans and arrays by value; a value written as a string runs in the type the tool's schema
 * gives it), refused with a next request that names what to fix, or shown as text; and no case may
 * run anything it did not mean. The figure by kind is printed at the end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin/registry.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { tempDirs } from '../helpers/tool-script.js';
import { figure, readRight, verdict, wildCases, wildModel, type Observed, type Verdict, type WildCall, type WildCase } from '../helpers/wild-calls.js';

/** The MCP server's name: its tools are offered as `wc__<tool>`. */
const SERVER = 'wc';

/** Per case id: the tools its MCP server offers, and every call it received (in order). */
const offered = new Map<string, { tools: WildCase['tools']; received: WildCall[] }>();
/**
 * The MCP server of every case, at `<url>/<case id>`: stateless Streamable HTTP (a server per
 * request, JSON answers), each case's tools under their own names and JSON Schemas; each call is
 * recorded and answers "ok".
 */
const mcpHttp = http.createServer(async (req, res) => {
  const entry = offered.get(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1)));
  if (entry === undefined) return void res.writeHead(404).end();
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  let body = '';
  for await (const chunk of req) body += chunk;
  const server = new Server({ name: 'wild-calls', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: entry.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: { type: 'object' as const, properties: {}, ...(tool.parameters ?? {}) },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    entry.received.push({ name: request.params.name, arguments: request.params.arguments ?? {} });
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res, JSON.parse(body));
});
let mcpUrl = '';

const builtins = new Map<string, string[]>(BUILTIN_TOOLS.map((module) => [module.name, Object.keys(toChatTool(module).function.parameters.properties)]));
/** A case's tool is ours when a built-in has its name and every parameter it declares. */
function ours(tool: WildCase['tools'][number]): boolean {
  const parameters = builtins.get(tool.name);
  return parameters !== undefined && Object.keys(tool.parameters?.properties ?? {}).every((p) => parameters.includes(p));
}

/**
 * What the agent should do with a case here. A case tool named like a built-in but taking other
 * parameters (Roo Code's `read_file` with `files`) is offered from the MCP fixture as `wc__<name>`,
 * and the call, by its exact name, reaches the built-in: refusing it, naming the built-in's own
 * parameters, is the right outcome.
 */
function expected(c: WildCase): WildCase {
  if (!('run' in c.expect)) return c;
  const shadowed = c.tools.filter(
    (tool) => builtins.has(tool.name) && !ours(tool) && 'run' in c.expect && c.expect.run.some((call) => call.name === tool.name),
  );
  if (shadowed.length === 0) return c;
  // The refusal names what is missing by the built-in's own first parameter (`"path" is missing`).
  const mentions = shadowed.flatMap((tool) => [`${tool.name}: `, ...builtins.get(tool.name)!.slice(0, 1)]);
  return { ...c, expect: { refuse: { because: `the built-in ${shadowed.map((t) => t.name).join(', ')} takes the call`, mentions } } };
}

const tempDir = tempDirs('openai-acp-wild-calls-');
/**
 * Cases run on a few lanes at once, each an agent and its model server; a lane runs its cases one
 * after another (its server answers one case at a time).
 */
interface Lane {
  server: FakeOpenAI;
  agent: AgentProcess;
  /** The lane's last case, which the next one waits for. */
  busy: Promise<unknown>;
}
const LANES = 3;
const lanes: Lane[] = [];
const results: { c: WildCase; verdict: Verdict; read: boolean }[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => mcpHttp.listen(0, '127.0.0.1', resolve));
  mcpUrl = `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}`;
  for (let i = 0; i < LANES; i++) {
    const server = await startFakeOpenAI();
    // A busy machine answers the MCP server slowly: the session waits for it (its tools are the case's), within the helper's 15 s for an answer.
    const agent = spawnAgent({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_ACP_STATE_DIR: 'off',
      OPENAI_MAX_RETRIES: '0',
      OPENAI_ACP_MCP_STARTUP_MS: '14000',
    });
    const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    if (init.result?.protocolVersion !== 1) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    lanes.push({ server, agent, busy: Promise.resolve() });
  }
});

/** Runs `c` on lane `i % LANES` once the lane's earlier cases are done. */
function onLane<T>(i: number, run: (lane: Lane) => Promise<T>): Promise<T> {
  const lane = lanes[i % LANES]!;
  const result = lane.busy.then(() => run(lane));
  lane.busy = result.catch(() => undefined);
  return result;
}

afterAll(async () => {
  for (const { agent, server } of lanes) {
    agent.kill();
    await server.close();
  }
  mcpHttp.closeAllConnections();
  await new Promise((resolve) => mcpHttp.close(resolve));
  if (results.length === 0) return;
  const run = results.filter((r) => 'run' in r.c.expect);
  const downstream = run.filter((r) => r.read && r.verdict !== 'carried').map((r) => r.c.id);
  console.log(
    [
      `Real-call corpus through the built agent (${results.length} cases):`,
      figure(results),
      `Calls to run read and handed on right by the reader: ${run.filter((r) => r.read).length} of ${run.length}.`,
      `Read right but not carried out (refused by the argument check, or by a name the runner does not resolve): ${downstream.join(', ') || 'none'}.`,
    ].join('\n'),
  );
});

/** Runs one case in a session of its own and observes what happened. */
async function replay(c: WildCase, { server, agent }: Lane): Promise<Observed> {
  const cwd = tempDir();
  const foreign = c.tools.filter((tool) => !ours(tool));
  const mcp = { tools: foreign, received: [] as WildCall[] };
  offered.set(c.id, mcp);
  const mcpServers = foreign.length > 0 ? [{ type: 'http', name: SERVER, url: `${mcpUrl}/${encodeURIComponent(c.id)}`, headers: [] }] : [];
  server.requests.length = 0;
  server.handle(wildModel(c));
  const created = await agent.request('session/new', { cwd, mcpServers });
  const sessionId = created.result.sessionId as string;
  await agent.request('session/set_mode', { sessionId, modeId: 'full-access' });
  const done = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Go on.' }] });
  expect(done.result?.stopReason, JSON.stringify(done)).toBeDefined();
  await agent.request('session/close', { sessionId });

  const updates = agent.updates(sessionId);
  const announced = updates.filter((u) => u.sessionUpdate === 'tool_call');
  const running = new Set(updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress').map((u) => u.toolCallId));
  const next = server.requests[1]?.body.messages ?? [];
  const sent = next.filter((m: any) => m.role === 'assistant' && m.tool_calls).at(-1)?.tool_calls ?? [];
  const received = [...mcp.received];
  const ran: WildCall[] = [];
  announced.forEach((call, i) => {
    if (!running.has(call.toolCallId)) return;
    const name: string = sent[i]?.function.name ?? '?';
    ran.push(name.startsWith(`${SERVER}__`) ? (received.shift() ?? { name, arguments: '(not received)' }) : { name, arguments: call.rawInput });
  });
  const firstUser = next.findIndex((m: any) => m.role === 'user');
  const handed = sent.map((call: any): WildCall => ({ name: call.function.name.replace(`${SERVER}__`, ''), arguments: parsed(call.function.arguments) }));
  return {
    ran,
    handed,
    // What the agent said to the model after the answer (tool results, or user messages on the text path), not the model's own words.
    toldModel: next.length > 0 ? JSON.stringify(next.slice(firstUser + 1).filter((m: any) => m.role !== 'assistant')) : '',
    shown: agent.text(sessionId),
    thought: agent.thoughts(sessionId),
  };
}

/** Arguments text as a value, or the text itself when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

describe('the real-call corpus through the built agent', () => {
  for (const [i, c] of wildCases().entries()) {
    const { expect: meant } = expected(c);
    it.concurrent(`${c.id} (${c.kind}, ${c.format}: ${'run' in meant ? 'run' : 'refuse' in meant ? 'refuse' : 'text'})`, { timeout: 180_000 }, async ({
      expect,
    }) => {
      const seen = await onLane(i, (lane) => replay(c, lane));
      const judged = verdict(expected(c), seen);
      const read = readRight(c, seen);
      results.push({ c, verdict: judged.verdict, read });
      // A call with a parameter the tool's schema lacks may be refused, naming what the tool takes.
      expect(judged.verdict, judged.why).toBe('run' in meant && judged.verdict !== 'refused' ? 'carried' : 'refused');
    });
  }
});
