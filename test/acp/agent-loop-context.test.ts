/**
 * The agent loop's side of issue 17: an answer saying the prompt was over the window (`overflow`
 * on the turn outcome, recognised by the turn runner) is retried with a smaller plan, a bounded
 * number of times, then the turn ends with a message naming the window and the fix; a window too
 * small for the fixed part ends the turn before any request.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatRequest } from '../../src/openai/chat-client.js';
import type { TurnInput, TurnOutcome } from '../../src/acp/turn-runner.js';
import { createLogger } from '../../src/log.js';
import { estimateTokens, promptBudget } from '../../src/turn/token-estimate.js';

const script: { outcomes: Partial<TurnOutcome>[]; requests: ChatRequest[] } = { outcomes: [], requests: [] };
vi.mock('../../src/acp/turn-runner.js', () => ({
  runTurn: async (input: TurnInput): Promise<TurnOutcome> => {
    script.requests.push(structuredClone(input.request));
    const next = script.outcomes.shift() ?? { text: 'done' };
    return { stopReason: 'end_turn', text: '', reasoning: '', toolCalls: [], ...next };
  },
}));
const { runAgentLoop } = await import('../../src/acp/agent-loop.js');

const logger = createLogger({ level: 'error', write: () => undefined });
const history = Array.from({ length: 8 }, (_, i) => [
  { role: 'user' as const, content: `question ${i} ${'q'.repeat(2000)}` },
  { role: 'assistant' as const, content: `answer ${i} ${'a'.repeat(2000)}` },
]);
const task = { role: 'user' as const, content: 'the task' };

async function run(contextWindow: number | undefined, system = 'sys') {
  const updates: SessionUpdate[] = [];
  const outcome = await runAgentLoop({
    client: {} as never,
    request: { model: 'm' },
    context: { system, turns: history, task, contextWindow },
    toolMessageRules: { echoReasoning: false, shortToolCallIds: false },
    maxSteps: 10,
    takesImages: false,
    signal: new AbortController().signal,
    send: async (batch) => void updates.push(...batch),
    logger,
  });
  const said = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text).join('');
  const thoughts = updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk').map((u) => (u as { content: { text: string } }).content.text).join('');
  return { outcome, said, thoughts };
}

beforeEach(() => {
  script.outcomes = [];
  script.requests = [];
});

describe('runAgentLoop: overflow answers', () => {
  it('retries within the window the server named, and answers', async () => {
    // The second request is the summary of the earlier turns (they no longer fit in 4,000 tokens).
    script.outcomes = [{ overflow: { window: 4000 } }, { text: 'summary of the questions' }, { text: 'fine' }];
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

  it('shrinks the window when the server names none, and gives up after three retries with the fix', async () => {
    script.outcomes = Array.from({ length: 10 }, () => ({ overflow: {}, error: { kind: 'http' as const, status: 400, retryable: false } }));
    const { outcome, said } = await run(32_000);
    const sent = script.requests.filter((r) => r.messages.includes(task) || r.messages.some((m) => m.content === 'the task'));
    expect(sent.length).toBe(4);
    const sizes = sent.map((r) => estimateTokens(r.messages));
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]!);
    expect(outcome.error).toBeDefined();
    expect(said).toMatch(/^The conversation no longer fits the model's context window \([\d,]+ tokens\)\. Fix: /);
  });

  it('ends the turn before any request when the window cannot hold the system prompt and the task', async () => {
    const { outcome, said } = await run(1000, 'S'.repeat(8000));
    expect(script.requests).toHaveLength(0);
    expect(outcome.error).toMatchObject({ kind: 'config', retryable: false });
    expect(said).toMatch(/context window \(1,000 tokens\) is too small .* it needs at least [\d,]+ tokens/);
  });
});
