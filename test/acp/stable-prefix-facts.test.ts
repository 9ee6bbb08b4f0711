/**
 * The prefix of a session's requests survives what users do to the instruction files and the
 * calendar (real agent wiring in process, file store in a temp dir): AGENTS.md edited (several
 * times between two turns), made binary, a symlink out of the repository, huge or deleted, and a
 * new day are each told in one note in front of the next prompt, never by changing the system
 * message; every request repeats the one before as its opening messages, also after a restart
 * with `session/load`, and after a compaction inside a turn (whose session holds only what came
 * after it). `/compact`, `/init` and `session/fork` start from the files as they are.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { agentOnStore } from '../helpers/in-process.js';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { script } from '../helpers/tool-script.js';

let server: FakeOpenAI;
let dir: string;
const closers: (() => void)[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-facts-')));
  server = await startFakeOpenAI(script([{ text: 'Noted.' }]));
});
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  for (const close of closers.splice(0)) close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An agent on `stateDir` whose client approves every tool call. */
async function agentOn(stateDir: string) {
  const { agent, close } = await agentOnStore({ baseUrl: server.baseUrl, stateDir, optionId: (options) => options[0]!.optionId });
  closers.push(close);
  return agent;
}

type Agent = Awaited<ReturnType<typeof agentOn>>;
const ask = async (agent: Agent, sessionId: string, text: string) => {
  const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(answer.stopReason).toBe('end_turn');
  return server.requests.at(-1)!.body;
};
const textOf = (message: { content: unknown }) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content));
const system = (body: Record<string, any>) => textOf(body.messages[0]);
/** A repository with AGENTS.md, for one session. */
function workspace(name: string, rules: string): string {
  const cwd = join(dir, name);
  mkdirSync(join(cwd, '.git'), { recursive: true });
  writeFileSync(join(cwd, 'AGENTS.md'), rules);
  return cwd;
}

describe('instruction files and the date during a session', () => {
  it('tells each change in one note before the next prompt; the system message and opening messages keep their bytes, after a restart too', async () => {
    const cwd = workspace('edits', 'Use two spaces.\n');
    const stateDir = join(dir, 'state-edits');
    const agent = await agentOn(stateDir);
    const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
    const bodies = [await ask(agent, sessionId, 'hi')];
    expect(system(bodies[0]!)).toContain('Use two spaces.');

    // Three quick edits between two turns: one note, with the text as it reads now.
    for (const rules of ['Use three spaces.\n', 'Use four spaces.\n', 'Use tabs.\n']) writeFileSync(join(cwd, 'AGENTS.md'), rules);
    bodies.push(await ask(agent, sessionId, 'go on'));
    const noted = textOf(bodies[1]!.messages.at(-1)!);
    expect(noted).toMatch(/^\[Instruction files changed during this conversation; follow them as they read now/);
    expect(noted).toContain('## AGENTS.md (edited)\nUse tabs.\n\ngo on');
    expect(noted).not.toContain('spaces');
    // Nothing changed since: no note.
    bodies.push(await ask(agent, sessionId, 'and then'));
    expect(bodies[2]!.messages.at(-1)).toEqual({ role: 'user', content: 'and then' });

    // Bad input: one line each, and the session goes on.
    writeFileSync(join(cwd, 'AGENTS.md'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x02]));
    bodies.push(await ask(agent, sessionId, 'binary'));
    expect(textOf(bodies[3]!.messages.at(-1)!)).toMatch(/\n## AGENTS\.md \(edited\): left out: it is not text \(6 bytes of binary data\)\n\nbinary$/);
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    writeFileSync(join(dir, 'elsewhere', 'rules.md'), 'Rules from elsewhere.\n');
    unlinkSync(join(cwd, 'AGENTS.md'));
    symlinkSync(join(dir, 'elsewhere', 'rules.md'), join(cwd, 'AGENTS.md'));
    bodies.push(await ask(agent, sessionId, 'linked'));
    expect(textOf(bodies[4]!.messages.at(-1)!)).toContain(
      `## AGENTS.md (edited)\nRules from elsewhere.\n[AGENTS.md: a symlink to ${join(dir, 'elsewhere', 'rules.md')}, outside the repository]`,
    );
    unlinkSync(join(cwd, 'AGENTS.md'));
    writeFileSync(join(cwd, 'AGENTS.md'), 'x'.repeat(200_000));
    bodies.push(await ask(agent, sessionId, 'huge'));
    const huge = textOf(bodies[5]!.messages.at(-1)!);
    expect(huge).toMatch(/\[AGENTS\.md: cut to its first \d+ KiB of 195 KiB to fit the context\]\n\nhuge$/);
    expect(huge.length).toBeLessThan(40_000);
    unlinkSync(join(cwd, 'AGENTS.md'));
    // A new day, and the file deleted.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 });
    const tomorrow = new Date().toISOString().slice(0, 10);
    bodies.push(await ask(agent, sessionId, 'next day'));
    const lastNote = textOf(bodies[6]!.messages.at(-1)!);
    expect(lastNote).toContain('## AGENTS.md (deleted): its instructions no longer apply.');
    expect(lastNote).toContain(`[Today is ${tomorrow}.]\n\nnext day`);

    // After a restart, session/load rebuilds the same requests: the next one only adds to them.
    const second = await agentOn(stateDir);
    await second.request('session/load', { sessionId, cwd, mcpServers: [] });
    bodies.push(await ask(second, sessionId, 'after restart'));
    for (const body of bodies) {
      expect(system(body)).toBe(system(bodies[0]!));
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0]!.tools));
    }
    for (let i = 1; i < bodies.length; i++) expect(bodies[i]!.messages.slice(0, bodies[i - 1]!.messages.length)).toEqual(bodies[i - 1]!.messages);
    expect(bodies.at(-1)!.messages.at(-1)).toEqual({ role: 'user', content: 'after restart' });
  });

  it('starts from the files as they are after /compact, in a fork, and after /init', async () => {
    const cwd = workspace('fresh', 'First rules.\n');
    const agent = await agentOn(join(dir, 'state-fresh'));
    const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
    await ask(agent, sessionId, 'hi');
    writeFileSync(join(cwd, 'AGENTS.md'), 'Second rules.\n');
    const forked = await agent.request('session/fork', { sessionId, cwd, mcpServers: [] });
    const inFork = await ask(agent, forked.sessionId, 'in the fork');
    expect(system(inFork)).toContain('Second rules.');
    expect(inFork.messages.at(-1)).toEqual({ role: 'user', content: 'in the fork' });

    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/compact' }] });
    writeFileSync(join(cwd, 'AGENTS.md'), 'Third rules.\n');
    const compacted = await ask(agent, sessionId, 'after compact');
    expect(system(compacted)).toContain('Third rules.');
    expect(system(compacted)).not.toContain('First rules.');
    expect(compacted.messages.at(-1)).toEqual({ role: 'user', content: 'after compact' });

    // /init writes AGENTS.md with the tools; the turn after it has the new file in its system message.
    server.handle(
      script([{ calls: [['write_file', { path: 'AGENTS.md', content: 'Rules from /init.\n' }]] }, { text: 'Wrote AGENTS.md.' }, { text: 'Noted.' }]),
    );
    await agent.request('session/set_mode', { sessionId, modeId: 'full-access' });
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/init' }] });
    const afterInit = await ask(agent, sessionId, 'after init');
    expect(system(afterInit)).toContain('Rules from /init.');
    expect(textOf(afterInit.messages.at(-1)!)).not.toContain('Instruction files changed');
  });

  it('keeps the system message of the turns a compaction inside a turn summarised, after a restart too: a later edit is a note', async () => {
    const cwd = workspace('compacted', 'Old rules.\n');
    const stateDir = join(dir, 'state-compacted');
    const agent = await agentOn(stateDir);
    const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
    const first = await ask(agent, sessionId, 'hi');
    expect(system(first)).toContain('Old rules.');
    // A long turn whose conversation was summarised inside it (the context planner's compaction):
    // the live part of the session starts there, the first turn's facts are on disk only.
    const quiet = createLogger({ level: 'error', write: () => undefined });
    const store = await openSessionStore({ stateDir, env: {}, logger: quiet });
    await store.append(sessionId, {
      type: 'turn',
      at: new Date().toISOString(),
      prompt: [{ type: 'text', text: 'a long task' }],
      assistant: 'Done.',
      reasoning: '',
      stopReason: 'end_turn',
      context: { summary: 'The user asked for a long task; it is done.', summarizedSteps: 0 },
    });
    store.close();
    writeFileSync(join(cwd, 'AGENTS.md'), 'New rules.\n');
    const second = await agentOn(stateDir);
    await second.request('session/load', { sessionId, cwd, mcpServers: [] });
    const after = await ask(second, sessionId, 'next');
    // The system message is the first turn's (the edit is not in it), the summary after it.
    expect(system(after)).toBe(system(first));
    expect(after.messages[2]).toEqual({ role: 'assistant', content: 'The user asked for a long task; it is done.' });
    expect(system(after)).not.toContain('New rules.');
    expect(textOf(after.messages.at(-1)!)).toContain('## AGENTS.md (edited)\nNew rules.\n\nnext');
  });
});
