/**
 * The prefix of a session's requests stays put across mode changes (real agent wiring in process,
 * file store in a temp dir): ask → plan → (plan approved) ask → read-only, then `session/load` in a
 * new agent, and the system message and the `tools` array are the same bytes in every request;
 * the mode is told in the conversation instead, once per change, and kept there.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { agentOnStore } from '../helpers/in-process.js';
import { script } from '../helpers/tool-script.js';

let server: FakeOpenAI;
let dir: string;
const closers: (() => void)[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-prefix-')));
  server = await startFakeOpenAI(
    script([
      { text: 'Hello.' }, // ask
      { calls: [['write_file', { path: 'a.txt', content: 'x' }]] }, // plan: refused
      { calls: [['update_plan', { entries: [{ content: 'Write a.txt', status: 'pending' }] }]] }, // plan: approved → ask
      { text: 'Planned and switched.' },
      { text: 'Back in ask.' }, // ask
      { text: 'Read only now.' }, // read-only
      { text: 'Loaded again.' }, // after session/load
    ]),
  );
});
afterAll(async () => {
  for (const close of closers.splice(0)) close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An agent on the shared state dir whose client approves a plan with "Start: switch to Ask". */
async function agentOn(stateDir: string) {
  const { agent, close } = await agentOnStore({ baseUrl: server.baseUrl, stateDir, optionId: () => 'plan_start_ask' });
  closers.push(close);
  return agent;
}

const userText = (message: { content: unknown }) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content));

describe('the prefix across mode changes', () => {
  it('keeps the system message and the tools byte-identical; each switch is one note in the conversation, kept after session/load', async () => {
    const stateDir = join(dir, 'state');
    const cwd = join(dir, 'work');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'AGENTS.md'), 'Use two spaces.\n');
    const agent = await agentOn(stateDir);
    const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
    const prompt = (text: string) => agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

    await prompt('hi');
    await agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    await prompt('plan a change');
    await prompt('go on');
    await agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    await prompt('look only');
    const second = await agentOn(stateDir);
    await second.request('session/load', { sessionId, cwd, mcpServers: [] });
    await second.request('session/set_mode', { sessionId, modeId: 'ask' });
    await second.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });

    const bodies = server.requests.map((r) => r.body);
    expect(bodies).toHaveLength(7);
    const system = JSON.stringify(bodies[0]!.messages[0]);
    const tools = JSON.stringify(bodies[0]!.tools);
    expect(bodies[0]!.messages[0].content).toContain('Use two spaces.');
    for (const body of bodies) {
      expect(JSON.stringify(body.messages[0])).toBe(system);
      expect(JSON.stringify(body.tools)).toBe(tools);
    }
    // The plan mode's rule went in front of the prompt once; the edit it forbids was refused with today's words.
    const planTask = bodies[1]!.messages.at(-1)!;
    expect(userText(planTask)).toMatch(/^\[Session mode: Plan\. No edits or commands yet/);
    expect(userText(planTask)).toContain('plan a change');
    expect(bodies[2]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('The session is in plan mode: edits and commands are not allowed'),
    });
    expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toBe('Use two spaces.\n');
    // The approval's result told the model of ask mode: the next turn adds no note.
    expect(bodies[3]!.messages.at(-1)!.content).toContain('switched the session to ask mode');
    expect(bodies[4]!.messages.at(-1)).toEqual({ role: 'user', content: 'go on' });
    // Each request repeats the one before as its opening messages.
    for (let i = 1; i < bodies.length; i++) {
      const before = bodies[i - 1]!.messages;
      expect(bodies[i]!.messages.slice(0, before.length)).toEqual(before);
    }
    expect(userText(bodies[5]!.messages.at(-1)!)).toMatch(/^\[Session mode: Read only\. You cannot edit files/);
    // After session/load the notes are still there, and ask (set again) is told.
    expect(
      bodies[6]!.messages
        .filter((m: { role: string }) => m.role === 'user')
        .map(userText)
        .filter((t: string) => t.startsWith('[Session mode:')),
    ).toHaveLength(3);
    expect(userText(bodies[6]!.messages.at(-1)!)).toMatch(/^\[Session mode: Ask\./);
  });
});
