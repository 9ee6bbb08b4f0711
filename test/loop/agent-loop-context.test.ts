/**
 * The agent loop's side of fitting every request to the window: an answer saying the prompt was over the window (`overflow`
 * on the turn outcome, recognised by the model request) is retried with a smaller plan, a bounded
 * number of times, then the turn ends with a message naming the window and the fix; a window too
 * small for the fixed part ends the turn before any request.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { beforeEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { userNotifier } from '../../src/loop/notify.js';
import type { ChatCompletionsClient, ChatRequest } from '../../src/openai/chat-client.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import { createLogger } from '../../src/shared/log.js';
import { answerRoom, estimateTokens, promptBudget } from '../../src/context/token-estimate.js';
import { scriptedChat } from '../helpers/scripted-chat.js';

const URL_ = 'http://127.0.0.1:1/v1/chat/completions';
/** What each request gets: an overflow answer (vLLM's words with the window, OpenAI's code without), or text. */
type Step = { overflow: number | null } | { text: string };
const script: { steps: Step[]; requests: ChatRequest[] } = { steps: [], requests: [] };
const client = {
  options: { url: URL_ },
  secrets: [],
  async *stream(request: ChatRequest, signal: AbortSignal, progress: unknown) {
    script.requests.push(structuredClone(request));
    const step = script.steps.shift() ?? { text: 'done' };
    if ('overflow' in step) {
      const body =
        step.overflow === null
          ? {
              error: {
                message: 'Please reduce the length of the messages or completion.',
                type: 'invalid_request_error',
                param: 'messages',
                code: 'context_length_exceeded',
              },
            }
          : {
              object: 'error',
              message: `This model's maximum context length is ${step.overflow} tokens. However, you requested 40000 tokens. Please reduce the length of the messages or completion.`,
              type: 'BadRequestError',
              code: 400,
            };
      throw new ProviderHttpError(400, { get: () => null }, JSON.stringify(body), URL_);
    }
    yield* scriptedChat([{ text: step.text }]).client.stream(request, signal, progress as never);
  },
} as unknown as ChatCompletionsClient;

const logger = createLogger({ level: 'error', write: () => undefined });
const history = Array.from({ length: 8 }, (_, i) => [
  { role: 'user' as const, content: `question ${i} ${'q'.repeat(2000)}` },
  { role: 'assistant' as const, content: `answer ${i} ${'a'.repeat(2000)}` },
]);
const task = { role: 'user' as const, content: 'the task' };

async function run(contextWindow: number | undefined, system = 'sys', extra: { compactionUpdates?: boolean; notices?: boolean } = {}) {
  const updates: SessionUpdate[] = [];
  const send = async (batch: SessionUpdate[]) => void updates.push(...batch);
  const outcome = await runAgentLoop(
    { signal: new AbortController().signal, send, turnId: 'T' },
    {
      context: { system, turns: history, task, contextWindow },
      endpoint: {
        chat: client,
        request: { model: `m-${Math.random()}` },
        toolMessageRules: { echoReasoning: false, shortToolCallIds: false },
        takesImages: false,
      },
      limits: { maxSteps: 10 },
      callbacks: {
        logger,
        compactionUpdates: extra.compactionUpdates,
        notify: userNotifier(send, { notices: extra.notices ?? false }, new Set()),
      },
    },
  );
  const said = updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  // The agent's own words (a compaction told as text): messages under an id of their own, not the step's.
  const thoughts = updates
    .filter((u) => u.sessionUpdate === 'agent_thought_chunk' || (u.sessionUpdate === 'agent_message_chunk' && !/-\d+-m$/.test(u.messageId ?? '')))
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  return { outcome, said, thoughts, updates };
}

beforeEach(() => {
  script.steps = [];
  script.requests = [];
});

describe('runAgentLoop: overflow answers', () => {
  it('retries within the window the server named, and answers', async () => {
    // The second request is the summary of the earlier turns (they no longer fit in 4,000 tokens).
    script.steps = [{ overflow: 4000 }, { text: 'summary of the questions' }, { text: 'fine' }];
    const { outcome, thoughts } = await run(32_000);
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('fine');
    expect(script.requests).toHaveLength(3);
    const retry = script.requests[2]!;
    expect(estimateTokens(retry.messages)).toBeLessThanOrEqual(promptBudget(4000));
    expect(retry.messages).toContainEqual(task);
    expect(thoughts).toMatch(/Context compacted: 8 earlier turns summarised to fit the model's context window \(4,000 tokens\)/);
    expect(outcome.context?.summary).toBe('summary of the questions');
  });

  it.each([
    ['a <tool_call> block', '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/f3.ts"}}\n</tool_call>'],
    ['a JSON call in a fence', '```json\n{"name": "search_files", "arguments": {"pattern": "parse"}}\n```'],
    ["Mistral's [TOOL_CALLS]", '[TOOL_CALLS]read_file[ARGS]{"path": "a"}'],
  ])('a summary answered with a call written as text (%s) is refused: the earlier turns are left out instead', async (_, call) => {
    script.steps = [{ overflow: 4000 }, { text: call }, { text: 'fine' }];
    const { outcome, thoughts } = await run(32_000);
    expect(outcome.text).toBe('fine');
    expect(outcome.context?.summary).not.toContain(call);
    expect(thoughts).toContain("(the model's summary was a tool call)");
  });

  it('the summary request carries the answer cap too (a model repeating itself stops there instead of filling the window)', async () => {
    script.steps = [{ overflow: 4000 }, { text: 'summary of the questions' }, { text: 'fine' }];
    const { outcome } = await run(32_000);
    expect(outcome.context?.summary).toBe('summary of the questions');
    expect(script.requests.map((r) => r.maxTokens)).toEqual([answerRoom(32_000), answerRoom(4000), answerRoom(4000)]);
  });

  it('to a client with session.compaction and session.notices: the compaction as an entity, the recovery as a notice, both recorded', async () => {
    script.steps = [{ overflow: 4000 }, { text: 'summary of the questions' }, { text: 'fine' }];
    const { outcome, thoughts, updates } = await run(32_000, 'sys', { compactionUpdates: true, notices: true });
    expect(outcome.text).toBe('fine');
    expect(thoughts).not.toMatch(/Context compacted/);
    const told = updates.filter((u) => u.sessionUpdate.startsWith('compaction') || u.sessionUpdate === 'notice');
    expect(told).toEqual([
      { sessionUpdate: 'compaction_update', compactionId: 'T-c0', status: 'in_progress' },
      { sessionUpdate: 'compaction_summary_chunk', compactionId: 'T-c0', content: { type: 'text', text: 'summary of the questions' } },
      { sessionUpdate: 'compaction_update', compactionId: 'T-c0', status: 'completed' },
      expect.objectContaining({ sessionUpdate: 'notice', severity: 'warning', title: 'Request cut to fit the context window' }),
    ]);
    expect(outcome.compactions).toEqual([{ id: 'T-c0', beforeStep: 0, summary: 'summary of the questions' }]);
    // The answer's chunks carry the step's derived message id.
    expect(updates.find((u) => u.sessionUpdate === 'agent_message_chunk')).toMatchObject({ messageId: 'T-0-m' });
  });

  it('without those capabilities: the compaction is a thought as before, and no recovery words (there were none)', async () => {
    script.steps = [{ overflow: 4000 }, { text: 'summary of the questions' }, { text: 'fine' }];
    const { outcome, updates } = await run(32_000);
    expect(updates.some((u) => u.sessionUpdate.startsWith('compaction') || u.sessionUpdate === 'notice')).toBe(false);
    expect(outcome.compactions).toBeUndefined();
  });

  it('shrinks the window when the server names none, and gives up after three retries with the fix', async () => {
    script.steps = Array.from({ length: 10 }, () => ({ overflow: null }));
    const { outcome, said } = await run(32_000);
    const sent = script.requests.filter((r) => r.messages.includes(task) || r.messages.some((m) => m.content === 'the task'));
    expect(sent.length).toBe(4);
    const sizes = sent.map((r) => estimateTokens(r.messages));
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]!);
    expect(outcome.error).toBeDefined();
    expect(said).not.toMatch(/no longer fits/);
    expect(outcome.error?.message).toMatch(/^The conversation no longer fits the model's context window \([\d,]+ tokens\)\. Fix: /);
  });

  it('ends the turn before any request when the window cannot hold the system prompt and the task', async () => {
    const { outcome, said } = await run(1000, 'S'.repeat(8000));
    expect(script.requests).toHaveLength(0);
    expect(outcome.error).toMatchObject({ kind: 'config', retryable: false });
    expect(said).toBe('');
    expect(outcome.error?.message).toMatch(/context window \(1,000 tokens\) is too small .* it needs at least [\d,]+ tokens/);
  });
});
