/**
 * The per-turn context keeper: compaction when stubs are not enough (by the model, or a list of
 * the calls made when the model fails), the turn ended at once for a window too small, and the
 * window learnt or shrunk after overflow answers, a bounded number of times.
 */
import { describe, expect, it } from 'vitest';
import { ContextKeeper, type Prepared } from '../../src/context/context-keeper.js';
import { OVERFLOW_RETRIES, OVERFLOW_SHRINK } from '../../src/context/overflow-window.js';
import { COMPACT_INSTRUCTION } from '../../src/context/compaction.js';
import { estimateTokens, estimateToolTokens, promptBudget } from '../../src/context/token-estimate.js';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin/registry.js';

const builtinChatTools = () => BUILTIN_TOOLS.map(toChatTool);
import type { ChatMessage } from '../../src/openai/openai-types.js';

const tools = builtinChatTools();
const task: ChatMessage = { role: 'user', content: 'Find where the configuration is parsed.' };
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${i + 1}\tconst ${tag}${i} = parse(${i}); // ${tag}`).join('\n');

/** Adds a read_file step whose result has `n` lines. */
function readStep(keeper: ContextKeeper, k: number, n: number): void {
  const step = keeper.step({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${k}.ts` }) } }],
  });
  step.push({ role: 'tool', tool_call_id: `c${k}`, content: lines(n, `f${k}_`) });
}

const messagesOf = (p: Prepared) => {
  if ('stop' in p) throw new Error(p.stop);
  return p;
};

describe('ContextKeeper', () => {
  it('keeps every request of a long tool loop inside the budget, compacting with the model when stubs are not enough', async () => {
    const keeper = new ContextKeeper({ system: 'You are a coding agent.', turns: [], task, contextWindow: 4000 });
    const asked: ChatMessage[][] = [];
    const summarize = async (messages: ChatMessage[]) => {
      asked.push(messages);
      return 'Read f0–f20; the parser is in src/f3.ts.';
    };
    const budget = promptBudget(4000);
    let notices: string[] = [];
    for (let k = 0; k < 40; k++) {
      const p = messagesOf(await keeper.prepare(tools, summarize));
      expect(estimateTokens(p.messages) + estimateToolTokens(tools)).toBeLessThanOrEqual(budget);
      expect(p.messages).toContainEqual(task);
      notices = notices.concat(p.notices);
      readStep(keeper, k, 60);
    }
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked) {
      expect(estimateTokens(request)).toBeLessThanOrEqual(budget);
      expect(String(request.at(-1)!.content)).toContain(COMPACT_INSTRUCTION);
    }
    expect(notices.length).toBe(asked.length);
    expect(notices[0]).toMatch(/^Context compacted: \d+ steps of this turn summarised to fit the model's context window \(4,000 tokens\)\.$/);
    const state = keeper.state();
    expect(state.summary).toBe('Read f0–f20; the parser is in src/f3.ts.');
    expect(state.summarizedSteps).toBeGreaterThan(0);
    const last = messagesOf(await keeper.prepare(tools, summarize));
    // The system message stays as it was; the summary follows it as the answer to the request for it.
    expect(last.messages.slice(0, 3)).toEqual([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: COMPACT_INSTRUCTION },
      { role: 'assistant', content: 'Read f0–f20; the parser is in src/f3.ts.' },
    ]);
  });

  it('lists the calls made when the model cannot write the summary', async () => {
    const keeper = new ContextKeeper({ turns: [], task, contextWindow: 3000 });
    let notice = '';
    for (let k = 0; k < 40 && !notice; k++) {
      const p = messagesOf(await keeper.prepare(tools, async () => undefined));
      notice = p.notices[0] ?? '';
      readStep(keeper, k, 60);
    }
    expect(notice).toMatch(/replaced by a list of the calls made/);
    expect(keeper.state().summary).toMatch(/Tool calls made so far .*\n- read_file \{"path":"src\/f0\.ts"\}/);
  });

  it('ends the turn at once when the system prompt, tools, task and answer room do not fit', async () => {
    const keeper = new ContextKeeper({ system: 'S'.repeat(4000), turns: [], task, contextWindow: 1024 });
    const p = await keeper.prepare(tools, async () => 'never');
    expect('stop' in p && p.stop).toMatch(
      /context window \(1,024 tokens\) is too small .* it needs at least [\d,]+ tokens\. Run the model with a larger context window/,
    );
  });

  it('learns the window an overflow answer names, else shrinks it, and gives up after the bounded retries', async () => {
    const keeper = new ContextKeeper({ turns: [], task, contextWindow: 32_000 });
    messagesOf(await keeper.prepare(tools, async () => undefined));
    expect(keeper.overflow(8192)).toBe(true);
    expect(keeper.contextWindow).toBe(8192);
    expect(keeper.overflow(9000)).toBe(true); // not smaller than what is assumed: shrink instead
    expect(keeper.contextWindow).toBeLessThanOrEqual(Math.floor(8192 * OVERFLOW_SHRINK));
    expect(keeper.overflow()).toBe(true);
    expect(OVERFLOW_RETRIES).toBe(3);
    expect(keeper.overflow()).toBe(false);
  });

  it('shrinks from the last request when no window was known', async () => {
    const keeper = new ContextKeeper({ turns: [], task, contextWindow: undefined });
    const p = messagesOf(await keeper.prepare(tools, async () => undefined));
    expect(keeper.overflow()).toBe(true);
    expect(keeper.contextWindow).toBe(Math.floor(p.rawEstimatedTokens * OVERFLOW_SHRINK));
  });
});

describe('ContextKeeper words', () => {
  it("gives the server's own fix when the profile has one", async () => {
    const keeper = new ContextKeeper({
      system: 'S'.repeat(4000),
      turns: [],
      task,
      contextWindow: 1024,
      windowFix: 'restart llama-server with a larger context (`-c 32768`)',
    });
    const p = await keeper.prepare(tools, async () => 'never');
    expect('stop' in p && p.stop).toMatch(/Fix: restart llama-server with a larger context \(`-c 32768`\)\.$/);
  });
});

describe('ContextKeeper: summaries checked', () => {
  /** A keeper at 3,000 tokens driven until it compacts once, with `answer` as the model's summary. */
  async function compactWith(answer: Awaited<ReturnType<Parameters<ContextKeeper['prepare']>[1]>>) {
    const keeper = new ContextKeeper({ turns: [], task, contextWindow: 3000 });
    let asked = 0;
    let notice = '';
    for (let k = 0; k < 40 && !notice; k++) {
      const p = messagesOf(
        await keeper.prepare(tools, async () => {
          asked++;
          return answer;
        }),
      );
      notice = p.notices[0] ?? '';
      readStep(keeper, k, 60);
    }
    return { keeper, asked, notice };
  }

  it('takes a summary that is prose and fits its room', async () => {
    const { keeper, asked, notice } = await compactWith({ text: 'Read f0–f9; the parser is in src/f3.ts.', toolCalls: 0 });
    expect(asked).toBe(1);
    expect(notice).toMatch(/summarised to fit the model's context window \(3,000 tokens\)\.$/);
    expect(keeper.state().summary).toBe('Read f0–f9; the parser is in src/f3.ts.');
  });

  it.each([
    // A call written as text is counted by the caller (test/loop/agent-loop-context.test.ts).
    ['a structured tool call', { text: 'Let me look first.', toolCalls: 1 }, 'a tool call'],
    ['empty', { text: '  \n', toolCalls: 0 }, 'empty'],
    ['larger than its room', { text: 'The parser reads each value. '.repeat(400), toolCalls: 0 }, 'too long'],
    ['stopped at its token cap (incomplete)', { text: 'Read f0–f9; the parser is in', toolCalls: 0, cut: true }, 'too long'],
  ])('refuses a summary that is %s and lists the calls made instead', async (_name, answer, why) => {
    const { keeper, asked, notice } = await compactWith(answer);
    expect(asked).toBe(1);
    expect(notice).toContain(`replaced by a list of the calls made to fit the model's context window (3,000 tokens) (the model's summary was ${why}).`);
    expect(keeper.state().summary).toMatch(/^Tool calls made so far .*\n- read_file \{"path":"src\/f0\.ts"\}/);
  });

  it('asks for no summary when even the current step alone does not fit, and names the step and the smallest window that works', async () => {
    const keeper = new ContextKeeper({ turns: [], task, contextWindow: 2048 });
    readStep(keeper, 0, 40);
    // The current step: a call whose arguments alone are larger than the window.
    const step = keeper.step({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'w', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'big.ts', content: lines(400, 'w') }) } }],
    });
    step.push({ role: 'tool', tool_call_id: 'w', content: 'Wrote big.ts.' });
    let asked = 0;
    const p = await keeper.prepare(tools, async () => {
      asked++;
      return 'never';
    });
    expect(asked).toBe(0);
    const stop = 'stop' in p ? p.stop : '';
    expect(stop).toMatch(
      /^The model's context window \(2,048 tokens\) is too small for the latest tool call and its result .*: it needs at least ([\d,]+) tokens\./,
    );
    const minimum = Number(/at least ([\d,]+)/.exec(stop)![1]!.replace(/,/g, ''));
    expect(minimum % 256).toBe(0);
    // That window does hold the step (and the one below it does not).
    const holds = (window: number) => {
      const k = new ContextKeeper({ turns: [], task, contextWindow: window });
      k.step(step[0]!).push(step[1]!);
      return k.prepare(tools, async () => 'x');
    };
    expect('stop' in (await holds(minimum))).toBe(false);
    expect('stop' in (await holds(minimum - 256))).toBe(true);
  });

  it('names the system prompt and tools, or the task, as what did not fit', async () => {
    const bySystem = await new ContextKeeper({ system: 'S'.repeat(8000), turns: [], task, contextWindow: 1024 }).prepare(tools, async () => 'x');
    expect('stop' in bySystem && bySystem.stop).toMatch(
      /too small for the system prompt and the tool definitions with the room for the answer: it needs at least/,
    );
    const bigTask: ChatMessage = { role: 'user', content: lines(300, 'task') };
    const byTask = await new ContextKeeper({ turns: [], task: bigTask, contextWindow: 2048 }).prepare(tools, async () => 'x');
    expect('stop' in byTask && byTask.stop).toMatch(
      /too small for this request with the system prompt, the tool definitions and the room for the answer: it needs at least/,
    );
  });
});
