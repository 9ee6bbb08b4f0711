/**
 * The agent loop's steering hook (`_session/steering`): a message the user sends into the running
 * turn reaches the model before its next request (after a tool step's results, or after an answer
 * that would have ended the turn, which then becomes a step), the turn ends once with nothing
 * waiting, and messages no answer followed stay in the inbox's record.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../../src/tools/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { prepareTurnTools } from '../../src/loop/turn-tools.js';
import { createLogger } from '../../src/shared/log.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import type { Session } from '../../src/sessions/session.js';
import { STEERED_AFTER_TOOLS } from '../../src/sessions/conversation.js';
import { TurnInbox } from '../../src/sessions/turn-inbox.js';
import { fakeClient } from '../helpers/fake-acp-client.js';
import { scriptedChat, type ScriptedAnswer } from '../helpers/scripted-chat.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const text = (t: string) => [{ type: 'text' as const, text: t }];

/**
 * Runs a turn with tools (full access) and an open inbox; `onText` sees each text the model
 * streams, with the inbox, so a test can steer at that moment.
 */
async function run(answers: ScriptedAnswer[], onText: (text: string, inbox: TurnInbox, controller: AbortController) => void) {
  const cwd = await mkdtemp(join(tmpdir(), 'agent-loop-steer-'));
  dirs.push(cwd);
  await writeFile(join(cwd, 'a.txt'), 'alpha');
  const chat = scriptedChat(answers);
  const session = { id: 's1', cwd, createdAt: '', records: [], model: 'm', options: { mode: 'full-access' } } as unknown as Session;
  const tools = prepareTurnTools({
    session,
    state: { roots: { cwd, extra: [] }, mcp: undefined, mcpList: '' } as never,
    client: fakeClient().client,
    capabilities: { readTextFile: false, writeTextFile: false, terminal: false },
    profile: {},
    logger,
    saveOptions: async () => undefined,
  });
  const inbox = new TurnInbox();
  inbox.open();
  const controller = new AbortController();
  const updates: SessionUpdate[] = [];
  const send: UpdateSink = async (batch) => {
    updates.push(...batch);
    for (const update of batch)
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') onText(update.content.text, inbox, controller);
  };
  const outcome = await runAgentLoop(
    { signal: controller.signal, send, turnId: globalThis.crypto.randomUUID(), inbox },
    {
      context: { system: 'sys', turns: [], task: { role: 'user', content: 'go' } },
      endpoint: { chat: chat.client, request: { model: 'm' }, toolMessageRules: { echoReasoning: false, shortToolCallIds: false }, takesImages: false },
      tools,
      limits: { maxSteps: 10 },
      callbacks: { logger },
    },
  );
  const roles = (i: number) =>
    chat.seen[i]!.messages.map((m: ChatMessage) => `${m.role}: ${typeof m.content === 'string' ? m.content : m.content === null ? 'calls' : 'parts'}`);
  return { outcome, chat, inbox, roles, updates };
}

describe('the agent loop with messages sent into the turn', () => {
  it("a message sent during a tool step goes to the model after the step's results, before the next request", async () => {
    const r = await run(
      [{ text: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }] }, { text: 'Done, with tabs.' }],
      (said, inbox) => void (said === 'Reading.' && inbox.put(text('use tabs'))),
    );
    expect(r.chat.seen).toHaveLength(2);
    expect(r.roles(1)).toEqual([
      'system: sys',
      'user: go',
      'assistant: Reading.',
      expect.stringMatching(/^tool: /),
      `assistant: ${STEERED_AFTER_TOOLS}`,
      'user: use tabs',
    ]);
    expect(r.outcome.text).toBe('Done, with tabs.');
    expect(r.inbox.isClosed).toBe(true);
    expect(r.inbox.close(2).map((s) => [s.afterStep, s.prompt])).toEqual([[1, text('use tabs')]]);
  });

  it('a message sent while the model writes what would be its last answer: that answer becomes a step and the model answers the message', async () => {
    const r = await run(
      [{ text: 'Here is a long plan.' }, { text: 'Shorter: do it.' }],
      (said, inbox) => void (said.includes('long plan') && inbox.put(text('shorter'))),
    );
    expect(r.roles(1)).toEqual(['system: sys', 'user: go', 'assistant: Here is a long plan.', 'user: shorter']);
    expect(r.outcome.steps).toEqual([{ text: 'Here is a long plan.', reasoning: '', toolCalls: [], results: [] }]);
    expect(r.outcome.text).toBe('Shorter: do it.');
    expect(r.outcome.stopReason).toBe('end_turn');
    // Each answer keeps its own message id, as a replay of the saved turn shows them.
    const ids = r.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u as { messageId?: string }).messageId);
    expect(new Set(ids).size).toBe(2);
  });

  it('two messages sent during one answer reach the next request together, in order', async () => {
    const r = await run([{ text: 'First.' }, { text: 'Both.' }], (said, inbox) => {
      if (said !== 'First.') return;
      void inbox.put(text('one'));
      void inbox.put(text('two'));
    });
    expect(r.roles(1).slice(-1)).toEqual(['user: one\n\ntwo']);
    expect(r.chat.seen).toHaveLength(2);
  });

  it('a turn cancelled with a message waiting ends cancelled, and the message stays, after the answers the turn made', async () => {
    const r = await run([{ text: 'Working', hang: true }], (said, inbox, controller) => {
      if (said !== 'Working') return;
      void inbox.put(text('never seen'));
      controller.abort();
    });
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.chat.seen).toHaveLength(1);
    expect(r.inbox.close(r.outcome.steps.length + (r.outcome.text ? 1 : 0)).map((s) => [s.afterStep, s.prompt])).toEqual([[1, text('never seen')]]);
  });
});
