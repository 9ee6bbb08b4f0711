/**
 * A catastrophic pattern cannot stall the agent: with the JavaScript search
 * (`OPENAI_ACP_RIPGREP=off`), `^(a+)+$` over 36 `a` and a `!` would backtrack for hours. While it
 * runs, a second session is answered; a `session/cancel` then ends the first turn, and the search's
 * worker thread is gone (its thread leaves the process) instead of running on.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatHandler } from '../helpers/fake-openai.js';
import { chunk, fakeServerPool } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-search-');
const agents: AgentProcess[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

const CATASTROPHIC = '^(a+)+$';

/** The model: "search" asks for the catastrophic search, "find" for a plain one, a tool result is answered "searched", anything else "hello back". */
const model: ChatHandler = (_req, res, body) => {
  const messages = body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1]!;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const asked = last.role === 'user' ? JSON.stringify(last.content) : '';
  if (asked.includes('search') || asked.includes('find')) {
    const pattern = asked.includes('search') ? CATASTROPHIC : 'a{4}!$';
    res.write(
      chunk({
        tool_calls: [{ index: 0, id: `call_${messages.length}`, type: 'function', function: { name: 'search_files', arguments: JSON.stringify({ pattern }) } }],
      }),
    );
    res.write(chunk({}, 'tool_calls'));
  } else {
    res.write(chunk({ content: last.role === 'tool' ? 'searched' : 'hello back' }));
    res.write(chunk({}, 'stop'));
  }
  res.end('data: [DONE]\n\n');
};

/** Thread ids of a Linux process (a worker thread is one of them). */
const threads = (pid: number) => new Set(readdirSync(`/proc/${pid}/task`));
/** Ids in `now` that `before` lacks. */
const added = (before: Set<string>, now: Set<string>) => [...now].filter((id) => !before.has(id));

describe.skipIf(process.platform !== 'linux')('search_files with a catastrophic pattern (JavaScript search)', () => {
  it('answers another session while it runs, and a cancel ends it and its worker', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'redos.txt'), `${'a'.repeat(36)}!\n`);
    const server = await servers(model);
    // A budget far beyond the test: only the cancel can end this search.
    const agent = spawnAgent({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_ACP_STATE_DIR: 'off',
      OPENAI_ACP_RIPGREP: 'off',
      OPENAI_ACP_SEARCH_TIMEOUT_MS: '3600000',
    });
    agents.push(agent);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const a = (await agent.request('session/new', { cwd, mcpServers: [] })).result.sessionId;
    const b = (await agent.request('session/new', { cwd, mcpServers: [] })).result.sessionId;
    const pid = agent.child.pid!;
    // The search works in the built CLI at all: a plain pattern finds the line.
    const found = await agent.request('session/prompt', { sessionId: b, prompt: [{ type: 'text', text: 'find' }] });
    expect(found.result.stopReason).toBe('end_turn');
    const done = agent.updates(b).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain(`redos.txt:1: ${'a'.repeat(36)}!`);
    const idle = threads(pid);

    let searchAnswered = false;
    const searching = agent.request('session/prompt', { sessionId: a, prompt: [{ type: 'text', text: 'search' }] }).then((answer) => {
      searchAnswered = true;
      return answer;
    });
    await waitFor(() => agent.updates(a).some((u) => u.sessionUpdate === 'tool_call' && u.title?.startsWith('Search')), 10_000, 'the search tool call');
    // The worker thread is running the pattern: a thread that was not there before. Ids, not a
    // count: the plain search's worker may still be leaving while this one starts.
    await waitFor(() => added(idle, threads(pid)).length > 0, 10_000, 'the search worker thread');
    const started = added(idle, threads(pid));

    const other = await agent.request('session/prompt', { sessionId: b, prompt: [{ type: 'text', text: 'hi' }] });
    expect(other.result.stopReason).toBe('end_turn');
    expect(agent.text(b)).toBe('searchedhello back');
    // B was answered while A's search still ran: A has neither an answer nor a finished tool call.
    expect(searchAnswered).toBe(false);
    expect(agent.updates(a).some((u) => u.sessionUpdate === 'tool_call_update' && ['completed', 'failed'].includes(u.status))).toBe(false);

    agent.notify('session/cancel', { sessionId: a });
    const cancelled = await searching;
    expect(cancelled.result.stopReason).toBe('cancelled');
    // The cancel reached the worker: its thread leaves the process.
    await waitFor(
      () => {
        const now = threads(pid);
        return started.every((id) => !now.has(id));
      },
      10_000,
      'the worker thread to end',
    );
    // The cancelled session takes the next prompt, and no result of the search ever went to the model.
    const next = await agent.request('session/prompt', { sessionId: a, prompt: [{ type: 'text', text: 'hi again' }] });
    expect(next.result.stopReason).toBe('end_turn');
    const toolResults = server.requests.flatMap((r) =>
      (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content)),
    );
    expect(toolResults.some((text) => text.includes('redos.txt:1:'))).toBe(true);
    expect(toolResults.some((text) => /No matches|stopped after/.test(text))).toBe(false);
  });
});
