import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import type { ToolCallSession } from '../../src/loop/loop-input.js';
import { type PlanHooks, runPlanCall } from '../../src/loop/plan-mode.js';
import { runToolCall as runCall } from '../../src/loop/tool-call-runner.js';
import { createLogger } from '../../src/shared/log.js';
import type { ToolCallResult } from '../../src/openai/chat-stream-accumulator.js';
import type { ToolBackend } from '../../src/tools/backends/tool-backend.js';
import { builtinTools } from '../../src/tools/builtin/builtin-tools.js';
import { OfferedTools } from '../../src/tools/calls/offered-tools.js';
import { planTool } from '../../src/tools/policy/plan-tool.js';
import type { SessionMode } from '../../src/tools/policy/mode-table.js';
import { ToolError } from '../../src/tools/tool.js';
import { fakeClient, type FakeClientOptions } from '../helpers/fake-acp-client.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const OFFERED = ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command', 'fetch_url'];

/** What a call of these tests runs with: the session, the turn's callbacks, and the tools offered. */
interface Deps extends ToolCallSession {
  mode: SessionMode;
  send: (updates: SessionUpdate[]) => Promise<void>;
  signal: AbortSignal;
  offered: OfferedTools;
}

function deps(over: Partial<Omit<Deps, 'offered'>> & { backend: ToolBackend; plan?: PlanHooks }, client: FakeClientOptions = {}) {
  const fake = fakeClient(client);
  const updates: SessionUpdate[] = [];
  const { backend, plan, ...rest } = over;
  const d: Deps = {
    sessionId: 's1',
    editor: fake.client,
    send: async (batch) => void updates.push(...batch),
    mode: 'full-access',
    remembered: {},
    remember: async () => undefined,
    signal: new AbortController().signal,
    offered: new OfferedTools([]),
    ...rest,
  };
  const tools = builtinTools({ backend, roots: { cwd: '/p', extra: [] }, settings: {} });
  if (plan) {
    tools.push(
      planTool((entries, ctx) =>
        runPlanCall(entries, ctx.toolCall, { sessionId: 's1', client: fake.client, send: ctx.send, mode: d.mode, plan, logger, signal: ctx.signal }),
      ),
    );
  }
  d.offered = new OfferedTools(tools);
  return { d, updates, fake };
}

/** One call as the loop runs it: its name resolved among the offered tools, then run. */
function runToolCall(call: ToolCallResult, d: Deps) {
  return runCall({ send: d.send, signal: d.signal, logger }, call, d.offered.resolve(call.name), d);
}

const backend = (over: Partial<ToolBackend> = {}): ToolBackend => ({
  where: { read: 'local', write: 'local', terminal: 'client' },
  readTextFile: async () => 'text',
  writeTextFile: async () => undefined,
  runCommand: async () => ({ output: '', truncated: false, exitCode: 0, signal: null, timedOut: false, release: async () => undefined }),
  ...over,
});

describe('runToolCall', () => {
  it('a tool that throws a non-ToolError is a failed call naming an internal error, not a crash', async () => {
    const { d, updates } = deps({
      backend: backend({
        readTextFile: async () => {
          throw new TypeError('boom');
        },
      }),
    });
    const result = await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }, d);
    expect(result.status).toBe('failed');
    expect(result.forModel).toContain('internal error');
    expect(result.forModel).toContain('boom');
    expect(updates.at(-1)).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'failed' });
  });

  it('announces invalid JSON arguments with the raw text as rawInput, and fails without running', async () => {
    let ran = false;
    const { d, updates } = deps({ backend: backend({ readTextFile: async () => ((ran = true), '') }) });
    const result = await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path": ' }, d);
    expect(updates[0]).toMatchObject({ sessionUpdate: 'tool_call', status: 'pending', rawInput: '{"path": ' });
    expect(result).toMatchObject({ id: 'c1', status: 'failed', rawInput: '{"path": ' });
    expect(ran).toBe(false);
  });

  it('an unknown tool fails listing the offered tools', async () => {
    const { d } = deps({ backend: backend() });
    const result = await runToolCall({ id: 'c1', name: 'rm_rf', arguments: '{}' }, d);
    expect(result.status).toBe('failed');
    for (const name of OFFERED) expect(result.forModel).toContain(name);
  });

  it('the permission request shows the call as announced (same id, title, kind, rawInput)', async () => {
    const { d, updates, fake } = deps(
      { backend: backend(), mode: 'ask' },
      { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'cancelled' } }) } },
    );
    const result = await runToolCall({ id: 'c1', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }, d);
    const announced = updates[0] as { toolCallId: string; title: string; kind: string; rawInput: unknown };
    const asked = (fake.requests[0]!.params as { toolCall: Record<string, unknown> }).toolCall;
    expect(asked).toMatchObject({ toolCallId: announced.toolCallId, title: announced.title, kind: announced.kind, rawInput: announced.rawInput });
    expect(result.status).toBe('failed');
  });

  it('a client terminal is released even when the final update cannot be sent', async () => {
    let released = 0;
    const { d } = deps({
      backend: backend({
        runCommand: async (_command, run) => {
          await run.onStarted?.('term-1');
          return { output: 'ok', truncated: false, exitCode: 0, signal: null, timedOut: false, release: async () => void released++ };
        },
      }),
    });
    let sends = 0;
    d.send = async (batch) => {
      sends++;
      if (batch.some((u) => (u as { status?: string }).status === 'completed')) throw new Error('connection closed');
    };
    await runToolCall({ id: 'c1', name: 'run_command', arguments: '{"command":"ls"}' }, d).catch(() => undefined);
    expect(sends).toBeGreaterThan(2);
    expect(released).toBe(1);
  });

  it('without a permission request, announces the call together with its in_progress update (one send), before running it', async () => {
    const batches: string[][] = [];
    let seenWhenRun: string[][] = [];
    const { d } = deps({ backend: backend({ readTextFile: async () => ((seenWhenRun = batches.map((b) => [...b])), 'text') }) });
    d.send = async (batch) => void batches.push(batch.map((u) => `${u.sessionUpdate}:${(u as { status?: string }).status}`));
    await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }, d);
    expect(seenWhenRun).toEqual([['tool_call:pending', 'tool_call_update:in_progress']]);
    expect(batches).toEqual([['tool_call:pending', 'tool_call_update:in_progress'], ['tool_call_update:completed']]);
  });

  it('announces the call before asking for permission, and a refused call right before its failure', async () => {
    const { d, fake } = deps(
      { backend: backend(), mode: 'ask' },
      { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'cancelled' } }) } },
    );
    d.send = async (batch) => void fake.log.push(`send:${batch.map((u) => `${u.sessionUpdate}:${(u as { status?: string }).status}`).join(',')}`);
    await runToolCall({ id: 'c1', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }, d);
    expect(fake.log).toEqual(['send:tool_call:pending', 'request:session/request_permission', 'send:tool_call_update:failed']);
    fake.log.length = 0;
    await runToolCall({ id: 'c2', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }, { ...d, mode: 'read-only' });
    expect(fake.log).toEqual(['send:tool_call:pending,tool_call_update:failed']);
  });

  it('returns a result that gives the model the same text the record keeps', async () => {
    const { d } = deps({ backend: backend({ readTextFile: async () => 'line one\nline two\n' }) });
    const result = await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }, d);
    expect(result.status).toBe('completed');
    expect(result.forModel).toContain('line two');
    expect(result.id).toBe('c1');
    expect(result.toolCallId).toMatch(/^call-/);
  });

  it('checks the arguments once: coerced values reach the tool and rawInput, an ignored parameter is noted for the model', async () => {
    const { d, updates } = deps({ backend: backend({ readTextFile: async () => 'a\nb\n' }) });
    const result = await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt","offset":"2","colour":"red"}' }, d);
    expect(result.status).toBe('completed');
    expect(updates[0]).toMatchObject({ sessionUpdate: 'tool_call', rawInput: { path: 'a.txt', offset: 2 } });
    expect(result.forModel).toMatch(/^2\tb/);
    expect(result.forModel).toMatch(/\(Note: the unknown parameter "colour" was ignored\.\)$/);
  });

  it('refuses a bad argument with the field and what was expected, without running', async () => {
    let ran = false;
    const { d } = deps({ backend: backend({ readTextFile: async () => ((ran = true), '') }) });
    const result = await runToolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt","offset":0}' }, d);
    expect(result).toMatchObject({ status: 'failed', forModel: expect.stringContaining('"offset" must be an integer ≥ 1') });
    expect(ran).toBe(false);
  });

  it('asks with options worded by the tool, and remembers an "always" under its key', async () => {
    const remembered: [string, string][] = [];
    const { d, fake } = deps(
      { backend: backend(), mode: 'ask', remember: async (key, choice) => void remembered.push([key, choice]) },
      { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'selected', optionId: 'allow_always' } }) } },
    );
    const result = await runToolCall({ id: 'c1', name: 'run_command', arguments: '{"command":"git status"}' }, d);
    expect(result.status).toBe('completed');
    const options = (fake.requests[0]!.params as { options: { name: string }[] }).options;
    expect(options.map((o) => o.name)).toContain('Always allow "git" commands in this session');
    expect(remembered).toEqual([['run_command:git', 'allow']]);
  });
});

describe('runToolCall: write_file over an existing file', () => {
  it("shows the text it replaces in the permission request's diff (not oldText null, as for a new file)", async () => {
    const files: Record<string, string> = { '/p/a.txt': 'old line 1\nold line 2\n' };
    const read = async (path: string) => {
      if (!(path in files)) throw new ToolError(`no such file: ${path}`, 'not_found');
      return files[path]!;
    };
    const { d, fake } = deps(
      { backend: backend({ readTextFile: read, writeTextFile: async (path, text) => void (files[path] = text) }), mode: 'ask' },
      { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }) } },
    );
    await runToolCall({ id: 'c1', name: 'write_file', arguments: '{"path":"a.txt","content":"new\\n"}' }, d);
    await runToolCall({ id: 'c2', name: 'write_file', arguments: '{"path":"b.txt","content":"fresh\\n"}' }, d);
    const asked = fake.requests.filter((r) => r.method === 'session/request_permission').map((r) => (r.params['toolCall'] as { content: unknown[] }).content);
    expect(asked).toEqual([
      [{ type: 'diff', path: '/p/a.txt', oldText: 'old line 1\nold line 2\n', newText: 'new\n' }],
      [{ type: 'diff', path: '/p/b.txt', oldText: null, newText: 'fresh\n' }],
    ]);
    expect(files['/p/a.txt']).toBe('new\n');
  });
});

describe('runToolCall: the plan hand-over question answered `cancelled`', () => {
  it('ends the turn as a cancelled tool permission does: shown cancelled, no mode switch, no "keep planning" for the model', async () => {
    const switched: string[] = [];
    const { d, updates } = deps(
      {
        backend: backend(),
        mode: 'plan',
        plan: { keep: () => undefined, switchMode: async (mode) => void switched.push(mode) },
      },
      { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'cancelled' } }) } },
    );
    const result = await runToolCall(
      { id: 'c1', name: 'update_plan', arguments: '{"entries":[{"content":"Read the parser","status":"pending","priority":"high"}]}' },
      d,
    );
    expect(result.endsTurn).toBe(true);
    expect(result.status).toBe('failed');
    expect(result.forModel).not.toContain('keep planning');
    expect(switched).toEqual([]);
    expect(updates.at(-1)).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'failed' });
  });
});
