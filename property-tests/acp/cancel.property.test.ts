/**
 * Cancel is exact (property): a `session/cancel` read while a turn runs makes that turn answer
 * `cancelled`, and nothing the model streams from then on reaches the client, whatever stage the
 * turn is in: the model's first answer streaming, a permission request just answered (agent-shell's
 * Reject: `reject_once`, then `session/cancel` a moment later), the tool running, its result on its
 * way back, the second answer streaming. In process: the real agent wiring, a scripted model
 * behind the agent's `fetch`, a scripted client (the SDK's), the cancel sent after a random number
 * of event-loop turns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import { createLogger } from '../../src/shared/log.js';
import { testConfig } from '../../test/helpers/in-process.js';

const BASE = 'http://127.0.0.1:9/v1';
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One scripted turn: the first answer's pieces, whether it asks for a tool, the second answer's pieces. */
interface Script {
  first: number;
  tool: boolean;
  second: number;
  /** The client's answer to the permission request. */
  permission: 'allow_once' | 'reject_once';
  /** When the cancel goes: after this many event-loop turns from the prompt, or from the permission answer. */
  cancel: { from: 'prompt' | 'permission'; ticks: number };
  /** Event-loop turns between the model's pieces. */
  gap: number;
}

const sse = (body: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'test-model', ...body })}\n\n`;

/**
 * The model: each piece `p<n>` (numbered across the run) is handed to the agent only when it reads
 * it, and is marked as read after the cancel when the cancel was read first.
 */
function scriptedModel(script: Script, state: Pick<RunState, 'cancelRead' | 'afterCancel' | 'counter'>) {
  const stream = (pieces: number, call: boolean) => {
    const parts: string[] = [];
    for (let i = 0; i < pieces; i++) parts.push(`p${state.counter++} `);
    const items = parts.map((text) => ({ text }));
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (let i = 0; i < script.gap; i++) await tick();
        const next = items.shift();
        const encode = (s: string) => controller.enqueue(new TextEncoder().encode(s));
        if (next) {
          if (state.cancelRead) state.afterCancel.add(next.text.trim());
          encode(sse({ choices: [{ index: 0, delta: { content: next.text }, finish_reason: null }] }));
          return;
        }
        if (call) {
          const args = JSON.stringify({ path: 'a.txt', content: 'x' });
          encode(
            sse({
              choices: [
                {
                  index: 0,
                  delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: args } }] },
                  finish_reason: null,
                },
              ],
            }),
          );
          encode(sse({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }));
        } else encode(sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        encode('data: [DONE]\n\n');
        controller.close();
      },
    });
  };
  return async (url: string, init: { body?: unknown }) => {
    if (url.endsWith('/models')) return Response.json({ object: 'list', data: [{ id: 'test-model', object: 'model' }] });
    if (!url.endsWith('/chat/completions')) return new Response('not found', { status: 404 });
    const body = JSON.parse(String(init.body)) as { messages: Array<{ role: string }> };
    const second = body.messages.some((m) => m.role === 'tool');
    return new Response(second ? stream(script.second, false) : stream(script.first, script.tool), {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    });
  };
}

/** What one run shares with the model and the client: its script, whether the cancel was read, the pieces read after it. */
interface RunState {
  script: Script;
  sessionId: string;
  cancelRead: boolean;
  reached: boolean;
  afterCancel: Set<string>;
  counter: number;
  pendingCancel?: Promise<void>;
}

/** One agent and one client for all runs (runs go one after another, each in a session of its own). */
function harness() {
  let run: RunState | undefined;
  const cwd = mkdtempSync(join(tmpdir(), 'oa-cancel-'));
  const logger = createLogger({ level: 'error', write: () => undefined });
  const fetch = async (url: string, init: { body?: unknown }) => scriptedModel(run!.script, run!)(url, init);
  const agent = createOpenAIAgent({ config: testConfig({ OPENAI_BASE_URL: BASE }), logger, fetch: fetch as never });
  const received: SessionNotification[] = [];
  const sendCancel = (state: RunState, ticks: number) => {
    state.pendingCancel = (async () => {
      for (let i = 0; i < ticks; i++) await tick();
      await connection.agent.notify('session/cancel', { sessionId: state.sessionId });
    })();
  };
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      received.push(params);
    })
    .onRequest('session/request_permission', ({ params }) => {
      const state = run!;
      const option = params.options.find((o) => o.kind === state.script.permission) ?? params.options[0]!;
      if (state.script.cancel.from === 'permission') sendCancel(state, state.script.cancel.ticks);
      return { outcome: { outcome: 'selected', optionId: option.optionId } };
    })
    .connect(agent.app);
  const ready = connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });

  /** Runs one scripted turn with its cancel: the answer, whether the cancel reached a running turn, the chunks the client got. */
  async function runOnce(script: Script) {
    await ready;
    const sessionId = (await connection.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
    const state: RunState = { script, sessionId, cancelRead: false, reached: false, afterCancel: new Set(), counter: 0 };
    run = state;
    // Each run reads only its own session's updates: those of the runs before are let go.
    received.length = 0;
    // The moment the agent reads the cancel: the session's turn line's cancel, which says whether a turn was running.
    const line = agent.sessions.live(sessionId)!.line;
    const cancel = line.cancel.bind(line);
    line.cancel = () => {
      const hit = cancel();
      state.cancelRead = true;
      if (hit) state.reached = true;
      return hit;
    };
    const answer = connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    // Without a tool call there is no permission request: the cancel goes from the prompt.
    if (script.cancel.from === 'prompt' || !script.tool) sendCancel(state, script.cancel.ticks);
    const response = await answer;
    await state.pendingCancel;
    // Let anything still queued arrive.
    for (let i = 0; i < 5; i++) await tick();
    const chunks = received
      .filter((n) => n.sessionId === sessionId)
      .filter((n) => n.update.sessionUpdate === 'agent_message_chunk' || n.update.sessionUpdate === 'agent_thought_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text);
    // Let go of the session, as an editor closing the chat would: a thousand runs hold no thousand sessions.
    await connection.agent.request('session/close', { sessionId });
    return { stopReason: response.stopReason, reached: state.reached, chunks, afterCancel: state.afterCancel };
  }
  return {
    runOnce,
    close: () => {
      connection.close();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

const scripts: fc.Arbitrary<Script> = fc.record({
  first: fc.integer({ min: 1, max: 6 }),
  tool: fc.boolean(),
  second: fc.integer({ min: 1, max: 6 }),
  permission: fc.constantFrom('allow_once' as const, 'reject_once' as const),
  cancel: fc.record({ from: fc.constantFrom('prompt' as const, 'permission' as const), ticks: fc.integer({ min: 0, max: 40 }) }),
  gap: fc.integer({ min: 0, max: 3 }),
});

describe('session/cancel (property)', () => {
  it('a cancel read while the turn runs: the answer is cancelled and nothing the model streams after it reaches the client', async () => {
    const tally = { runs: 0, reached: 0, endTurn: 0, chunksAfter: 0 };
    const { runOnce, close } = harness();
    await fc
      .assert(
        fc.asyncProperty(scripts, async (script) => {
          const run = await runOnce(script);
          tally.runs++;
          if (!run.reached) return;
          tally.reached++;
          if (run.stopReason !== 'cancelled') tally.endTurn++;
          const late = run.chunks.filter((text) => [...run.afterCancel].some((piece) => text.includes(piece)));
          tally.chunksAfter += late.length;
          expect(run.stopReason).toBe('cancelled');
          expect(late).toEqual([]);
        }),
        { numRuns: 1000 },
      )
      .finally(close);
    expect(tally.endTurn).toBe(0);
    expect(tally.chunksAfter).toBe(0);
    // Most runs cancel a running turn (the property says nothing of the others).
    expect(tally.reached).toBeGreaterThan(tally.runs / 2);
  }, 600_000);
});
