/**
 * The recorded editor cases of a failed prompt, replayed against the built agent: the client's own
 * lines (test/fixtures/clients/, see PROVENANCE.md there) sent as the client sent them, a loopback
 * mock answering HTTP 500 where the recording's did. What makes each client work is asserted on
 * the agent's answer:
 * - CodeCompanion appends ```` ````txt\n<message>\n```` ```` right after the streamed text: the
 *   text ends its line (or there is none), else its error block swallows the next `## Me` header
 *   and every later prompt goes out empty;
 * - agent-shell shows the error's message in a block `Error (<code>)`: the message is the
 *   failure's words, once, not the SDK's `Internal error: …`;
 * - the next prompt in the same session answers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';

const FIXTURES = new URL('../fixtures/clients/', import.meta.url);

interface Line {
  t: number;
  dir: string;
  line: string;
}

/** The recording's lines of its first agent process (a recording may hold several, each from a `start` meta line). */
function firstRun(file: string): Line[] {
  const lines = readFileSync(new URL(file, FIXTURES), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
  const second = lines.findIndex((l, i) => i > 0 && l.dir === 'meta' && l.line.startsWith('start'));
  return second === -1 ? lines : lines.slice(0, second);
}

/** The mock of the recordings: `[[scenario:http:500]]` answers HTTP 500 as theirs did, anything else `You said: <prompt>`. */
async function recordingMock(): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI((_req, res, body) => {
    const last = String(body.messages?.at(-1)?.content ?? '');
    if (last.includes('[[scenario:http:500]]')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: 'mock error 500' } }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: `You said: ${last.trim().split('\n').at(-1)}` }));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
  server.setModels({ object: 'list', data: ['mock-small', 'mock-large', 'echo'].map((id) => ({ id, object: 'model' })) });
  return server;
}

let server: FakeOpenAI | undefined;
let agent: AgentProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  agent?.kill();
  await agent?.exited;
  agent = undefined;
  await server?.close();
  server = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Sends the recording's client lines to a fresh agent, each request awaited as the client awaited
 * it; the recorded session id becomes the live one, `<dir>`/`<home>` a temp folder. A prompt the
 * broken client sent empty (`"prompt":[]`, after its chat broke) is sent with what its user typed.
 * Returns each prompt's answer in order and the live session id.
 */
async function replay(file: string, model: string, typed: string[]): Promise<{ answers: any[]; sessionId: string }> {
  server = await recordingMock();
  const cwd = mkdtempSync(join(tmpdir(), 'oa-replay-'));
  dirs.push(cwd);
  agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: model, OPENAI_MAX_RETRIES: '0' });
  let recorded: string | undefined;
  let live = '';
  const answers: any[] = [];
  const queue = [...typed];
  for (const { dir, line } of firstRun(file)) {
    if (dir !== 'c2a') {
      // The recorded session id, from the agent's answer to session/new.
      const id = dir === 'a2c' ? /"sessionId":"([0-9a-f-]{36})"/.exec(line)?.[1] : undefined;
      if (id && !recorded) recorded = id;
      continue;
    }
    let text = line.replaceAll('<dir>', cwd).replaceAll('<home>', cwd);
    if (recorded && live) text = text.replaceAll(recorded, live);
    const message = JSON.parse(text) as { id?: number; method: string; params: any };
    if (message.method === 'session/prompt' && message.params.prompt.length === 0) message.params.prompt = [{ type: 'text', text: queue.shift() }];
    if (message.id === undefined) {
      agent.notify(message.method, message.params);
      continue;
    }
    const answer = await agent.request(message.method, message.params);
    if (message.method === 'session/new') live = answer.result.sessionId;
    // Each answer with the text streamed for its turn.
    if (message.method === 'session/prompt') {
      const before = answers.reduce((n, a) => n + a.streamed.length, 0);
      answers.push({ ...answer, streamed: agent.text(live).slice(before) });
    }
  }
  return { answers, sessionId: live };
}

/** What a client reads of a failed turn: every text streamed before its error ends its line, the words once, in the error. */
function expectOneFailureShape(failed: any, words: RegExp): void {
  expect(failed.error.code).toBe(-32603);
  expect(failed.error.message).not.toMatch(/internal error/i);
  expect(failed.error.message).toMatch(words);
  expect(failed.error.data).toMatchObject({ kind: 'http', status: 500 });
  // Shown once: not also streamed as the answer.
  expect(failed.streamed).not.toMatch(words);
  expect(failed.streamed === '' || failed.streamed.endsWith('\n')).toBe(true);
}

describe('recorded client traffic of a failed prompt, replayed', () => {
  it('CodeCompanion: the failure is its error block on a line of its own, its words once; the next prompts answer', async () => {
    const { answers, sessionId } = await replay('codecompanion-failed-prompt.tee.jsonl', 'mock-small', ['still alive?', 'third try?']);
    expect(answers).toHaveLength(3);
    expectOneFailureShape(answers[0], /server error \(HTTP 500\)[\s\S]*mock error 500/);
    expect(answers[1].result.stopReason).toBe('end_turn');
    expect(answers[2].result.stopReason).toBe('end_turn');
    expect(agent!.text(sessionId)).toBe('You said: still alive?You said: third try?');
  });

  it('agent-shell: the failure in its error block without the "Internal error" prefix, once; the next prompt answers', async () => {
    const { answers, sessionId } = await replay('agent-shell-failed-prompt.rpc.jsonl', 'echo', []);
    expect(answers).toHaveLength(2);
    expectOneFailureShape(answers[0], /server error \(HTTP 500\)[\s\S]*mock error 500/);
    expect(answers[1].result.stopReason).toBe('end_turn');
    expect(agent!.text(sessionId)).toBe('You said: still alive?');
  });
});
