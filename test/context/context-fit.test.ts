/**
 * The context planner: earlier turns kept or left out whole, tool results cut to their share,
 * results stubbed in blocks cut as late as they can be (sticky), compaction asked for, the current step cut last, the
 * task kept (cut past half the window), and the smallest window named when nothing fits.
 */
import { describe, expect, it } from 'vitest';
import { fitContext, RESULT_SHARE } from '../../src/context/context-fit.js';
import { estimateTokens, estimateToolTokens, MESSAGE_OVERHEAD_TOKENS, promptBudget, REPLY_PRIMING_TOKENS } from '../../src/context/token-estimate.js';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS, builtinCutNote } from '../../src/tools/builtin/registry.js';

const builtinChatTools = () => BUILTIN_TOOLS.map(toChatTool);
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { dataUrl, png } from './image-headers.js';

/** A message whose estimate is exactly `tokens` (content of `tokens - overhead` ASCII tokens). */
const user = (tokens: number, tag = ''): ChatMessage => ({ role: 'user', content: tag.padEnd(4 * (tokens - MESSAGE_OVERHEAD_TOKENS), '.') });
const assistant = (tokens: number, tag = ''): ChatMessage => ({ role: 'assistant', content: tag.padEnd(4 * (tokens - MESSAGE_OVERHEAD_TOKENS), '.') });
const system = (tokens: number) => ({ role: 'system' as const, content: 'S'.repeat(4 * (tokens - MESSAGE_OVERHEAD_TOKENS)) });

/** A tool step: one read_file call of `path` and its result of `lines` numbered lines. */
const step = (n: number, lines: number): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${n}.ts` }) } }],
  },
  {
    role: 'tool',
    tool_call_id: `call_${n}`,
    content: Array.from({ length: lines }, (_, i) => `${i + 1}\tconst v${i} = compute(${i}); // line ${i + 1} of f${n}`).join('\n'),
  },
];
const contentOf = (m: ChatMessage | undefined) => (typeof m?.content === 'string' ? m.content : '');

describe('fitContext: earlier turns without tool calls', () => {
  const turns = [
    [user(100, 'u1'), assistant(100, 'a1')],
    [user(100, 'u2'), assistant(100, 'a2')],
    [user(100, 'u3'), assistant(100, 'a3')],
  ];
  const current = user(50, 'now');
  const sys = system(50);
  /** Total estimate of system + current: 3 + 50 + 50. */
  const base = REPLY_PRIMING_TOKENS + 100;

  it('keeps everything when it fits', () => {
    const plan = fitContext({ system: sys.content, turns, task: current, contextWindow: 100_000 });
    expect(plan.messages).toEqual([sys, ...turns.flat(), current]);
    expect(plan).toMatchObject({ droppedTurns: 0, stubbed: [], compact: false, estimatedTokens: base + 600, rawEstimatedTokens: base + 600, fits: true });
    // The answer's room in a 100,000-token window: an eighth (answerRoom).
    expect(plan.budget).toBe(100_000 - 12_500 - 3000);
  });

  it('keeps everything without a context window', () => {
    for (const contextWindow of [undefined, 0, -5, Number.NaN]) {
      const plan = fitContext({ system: sys.content, turns, task: current, contextWindow });
      expect(plan.messages).toHaveLength(8);
      expect(plan.droppedTurns).toBe(0);
      expect(plan.budget).toBeUndefined();
    }
  });

  it('drops the oldest turns first, whole, keeping system and current', () => {
    // Room for system + current + two turns exactly.
    const plan = fitContext({ system: sys.content, turns, task: current, contextWindow: base + 400, reserveTokens: 0 });
    expect(plan.messages).toEqual([sys, ...turns[1]!, ...turns[2]!, current]);
    expect(plan).toMatchObject({ droppedTurns: 1, compact: true, estimatedTokens: base + 400, fits: true });

    const tighter = fitContext({ system: sys.content, turns, task: current, contextWindow: base + 399, reserveTokens: 0 });
    expect(tighter.messages).toEqual([sys, ...turns[2]!, current]);
    expect(tighter.droppedTurns).toBe(2);
  });

  it('never keeps a user message without its answer', () => {
    // 150 tokens of room: half a turn would fit, a whole one does not.
    const plan = fitContext({ system: sys.content, turns, task: current, contextWindow: base + 150, reserveTokens: 0 });
    expect(plan.messages).toEqual([sys, current]);
    expect(plan.droppedTurns).toBe(3);
  });

  it('keeps only a suffix: a large recent turn stops older small ones from being kept', () => {
    const mixed = [[user(10, 'small')], [user(500, 'big'), assistant(500)], [user(10, 'recent')]];
    const plan = fitContext({ turns: mixed, task: current, contextWindow: 300, reserveTokens: 0 });
    expect(plan.messages).toEqual([mixed[2]![0], current]);
    expect(plan.droppedTurns).toBe(2);
  });

  it('plans nothing when system and task alone do not fit, and names the smallest window that does', () => {
    const plan = fitContext({ system: system(5000).content, turns, task: current, contextWindow: 1000, reserveTokens: 0 });
    expect(plan.fits).toBe(false);
    expect(plan.minimumWindow).toBeGreaterThanOrEqual(REPLY_PRIMING_TOKENS + 5050);
    expect(plan.minimumWindow).toBeLessThan(REPLY_PRIMING_TOKENS + 5050 + 256);
    const there = fitContext({ system: system(5000).content, turns: [], task: current, contextWindow: plan.minimumWindow!, reserveTokens: 0 });
    expect(there.fits).toBe(true);
  });

  it('works without a system prompt', () => {
    const plan = fitContext({ turns, task: current, contextWindow: REPLY_PRIMING_TOKENS + 50 + 200, reserveTokens: 0 });
    expect(plan.messages).toEqual([...turns[2]!, current]);
  });

  it('scales estimates up with a calibration, dropping more', () => {
    // Uncalibrated, everything fits in base + 600; at 1.2× only two turns do.
    const window = base + 600;
    expect(fitContext({ system: sys.content, turns, task: current, contextWindow: window, reserveTokens: 0 }).droppedTurns).toBe(0);
    const plan = fitContext({
      system: sys.content,
      turns,
      task: current,
      contextWindow: window,
      reserveTokens: 0,
      calibration: { estimated: 1000, actual: 1200 },
    });
    expect(plan.droppedTurns).toBe(1);
    expect(plan.rawEstimatedTokens).toBe(base + 400);
    expect(plan.estimatedTokens).toBe(Math.ceil((base + 400) * 1.2));
    expect(plan.estimatedTokens).toBeLessThanOrEqual(window);
  });

  it('scales estimates down with a calibration, keeping more', () => {
    const window = Math.ceil((base + 600) / 2);
    expect(fitContext({ system: sys.content, turns, task: current, contextWindow: window, reserveTokens: 0 }).droppedTurns).toBe(2);
    const plan = fitContext({
      system: sys.content,
      turns,
      task: current,
      contextWindow: window,
      reserveTokens: 0,
      calibration: { estimated: 2000, actual: 1000 },
    });
    expect(plan.droppedTurns).toBe(0);
    expect(plan.estimatedTokens).toBe(Math.ceil((base + 600) * 0.5));
  });

  it('counts images in the turns it keeps or drops', () => {
    const url = dataUrl('image/png', png(1024, 1024)); // 765 tokens
    const withImage: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url } },
        ],
      },
      assistant(10),
    ];
    const plan = fitContext({ turns: [withImage, [user(10)]], task: current, contextWindow: 500, reserveTokens: 0 });
    expect(plan.droppedTurns).toBe(1);
    const roomy = fitContext({ turns: [withImage, [user(10)]], task: current, contextWindow: 1000, reserveTokens: 0 });
    expect(roomy.droppedTurns).toBe(0);
    expect(roomy.rawEstimatedTokens).toBe(REPLY_PRIMING_TOKENS + 50 + 10 + (MESSAGE_OVERHEAD_TOKENS + 1 + 765) + 10);
  });
});

describe('fitContext: tool loops', () => {
  const task: ChatMessage = { role: 'user', content: 'Find the bug in the parser and fix it.' };
  const sys = 'You are a coding agent.';
  const tools = builtinChatTools();

  it('counts the tool definitions against the budget', () => {
    const without = fitContext({ system: sys, turns: [], task, contextWindow: 8000 });
    const withTools = fitContext({ system: sys, turns: [], task, tools, contextWindow: 8000 });
    expect(withTools.rawEstimatedTokens - without.rawEstimatedTokens).toBe(estimateToolTokens(tools));
    expect(estimateToolTokens(tools)).toBeGreaterThan(500);
  });

  it('cuts a tool result to its share of the budget, head and tail, with a note giving the offset and limit of the rest', () => {
    const plan = fitContext({ system: sys, turns: [], task, steps: [step(1, 2000)], tools, contextWindow: 8000, cutNotes: builtinCutNote });
    const budget = promptBudget(8000);
    const result = plan.messages.at(-1)!;
    expect(result.role).toBe('tool');
    expect(estimateTokens([result])).toBeLessThanOrEqual(Math.floor(budget * RESULT_SHARE) + MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS + 20);
    const text = contentOf(result);
    expect(text.startsWith('1\t')).toBe(true);
    expect(text.endsWith('line 2000 of f1')).toBe(true);
    const note = /read_file with offset (\d+) and limit (\d+)/.exec(text);
    expect(note).not.toBeNull();
    const [from, count] = [Number(note![1]), Number(note![2])];
    // The note's range is exactly the lines left out.
    expect(text).toContain(`${from - 1}\tconst`);
    expect(text).not.toContain(`\n${from}\tconst`);
    expect(text).toContain(`\n${from + count}\tconst`);
    expect(plan.fits).toBe(true);
  });

  // Six short reads, then long ones: the planner must free room once the long ones fill the window.
  const mixed = [...Array.from({ length: 6 }, (_, i) => step(i + 1, 4)), ...Array.from({ length: 7 }, (_, i) => step(i + 7, 60))];

  it('stubs one block just before the newest result, well under the budget; the older results and the newest stay, and the current step is whole', () => {
    const plan = fitContext({ system: sys, turns: [], task, steps: mixed, tools, contextWindow: 8000 });
    expect(plan.fits).toBe(true);
    expect(plan.stubbed).toHaveLength(1);
    const [[from, to]] = plan.stubbed as [[number, number]];
    // The block ends before the newest earlier result and starts after the old ones (the server's cache holds their bytes).
    expect(to).toBe(11);
    expect(from).toBeGreaterThanOrEqual(6);
    const results = plan.messages.filter((m) => m.role === 'tool').map(contentOf);
    results.forEach((r, i) => {
      if (i >= from && i < to)
        expect(r).toMatch(/^\[Result of read_file \{"path":"src\/f\d+\.ts"\} left out to save context; call it again if you need it\.\]$/);
      else expect(r).toBe(contentOf(mixed[i]![1]));
    });
    // Well below the budget, so the next steps extend this prefix.
    expect(plan.estimatedTokens).toBeLessThanOrEqual(plan.budget! * 0.6);
  });

  it('changes nothing before the block: the request repeats the one before it up to the first stubbed call', () => {
    const before = fitContext({ system: sys, turns: [], task, steps: mixed.slice(0, -1), tools, contextWindow: 8000 });
    expect(before.stubbed).toEqual([]);
    const plan = fitContext({ system: sys, turns: [], task, steps: mixed, tools, contextWindow: 8000 });
    const first = plan.messages.findIndex((m) => m.role === 'tool' && contentOf(m).startsWith('[Result of'));
    // Up to the assistant message of the first stubbed call, the messages are the same: past six whole steps.
    expect(plan.messages.slice(0, first - 1)).toEqual(before.messages.slice(0, first - 1));
    expect(first - 1).toBeGreaterThanOrEqual(2 + 6 * 2);
  });

  it('keeps the stubs it made: the next step extends the same prefix until the budget is reached again', () => {
    const steps = Array.from({ length: 12 }, (_, i) => step(i + 1, 40));
    const first = fitContext({ system: sys, turns: [], task, steps, tools, contextWindow: 8000 });
    const next = fitContext({ system: sys, turns: [], task, steps: [...steps, step(13, 40)], tools, contextWindow: 8000, stubbed: first.stubbed });
    expect(next.stubbed).toEqual(first.stubbed);
    expect(next.messages.slice(0, first.messages.length)).toEqual(first.messages);
  });

  it('reads a count saved by an older session file as the first results', () => {
    const steps = Array.from({ length: 6 }, (_, i) => step(i + 1, 10));
    const plan = fitContext({ system: sys, turns: [], task, steps, tools, contextWindow: 100_000, stubbed: 2 });
    expect(plan.stubbed).toEqual([[0, 2]]);
    expect(plan.messages.filter((m) => m.role === 'tool' && contentOf(m).startsWith('[Result of'))).toHaveLength(2);
  });

  it('asks for a summary when stubs are not enough, and meanwhile leaves out the oldest steps', () => {
    const steps = Array.from({ length: 60 }, (_, i) => step(i + 1, 10));
    const plan = fitContext({ system: sys, turns: [], task, steps, tools, contextWindow: 4000 });
    expect(plan.compact).toBe(true);
    expect(plan.droppedSteps).toBeGreaterThan(0);
    expect(plan.fits).toBe(true);
    expect(plan.messages).toContainEqual(task);
    expect(plan.messages.at(-1)).toEqual(steps.at(-1)![1]);
  });

  it('cuts the current step further when its results alone are over the budget, never sending one whole', () => {
    const big = step(1, 5000);
    const many: ChatMessage[] = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [1, 2, 3, 4, 5].map((n) => ({
          id: `c${n}`,
          type: 'function' as const,
          function: { name: 'run_command', arguments: '{"command":"cat big.log"}' },
        })),
      },
    ];
    for (const n of [1, 2, 3, 4, 5]) many.push({ role: 'tool', tool_call_id: `c${n}`, content: contentOf(big[1]) });
    const plan = fitContext({ system: sys, turns: [], task, steps: [many], tools, contextWindow: 4000, cutNotes: builtinCutNote });
    expect(plan.fits).toBe(true);
    expect(plan.estimatedTokens).toBeLessThanOrEqual(plan.budget!);
    const results = plan.messages.filter((m) => m.role === 'tool').map(contentOf);
    expect(results).toHaveLength(5);
    for (const r of results) expect(r).toMatch(/of output left out to fit the context window; run the command again with its output filtered/);
    // Without the tools' own notes, a cut says only to ask for less.
    const plain = fitContext({ system: sys, turns: [], task, steps: [many], tools, contextWindow: 4000 });
    for (const r of plain.messages.filter((m) => m.role === 'tool').map(contentOf))
      expect(r).toMatch(/left out to fit the context window; ask for less at a time/);
  });

  it('cuts a task larger than half the window, with a note, and keeps it in the request', () => {
    const huge: ChatMessage = { role: 'user', content: 'Fix this:\n' + 'x = 1\n'.repeat(20_000) };
    const plan = fitContext({ system: sys, turns: [], task: huge, tools, contextWindow: 16_000 });
    expect(plan.taskCut).toBe(true);
    const sent = plan.messages.find((m) => m.role === 'user');
    expect(contentOf(sent)).toMatch(/^Fix this:/);
    expect(contentOf(sent)).toMatch(/of this message left out to fit the model's context window/);
    expect(estimateTokens([sent!])).toBeLessThanOrEqual(8000 + 10);
    expect(plan.fits).toBe(true);
  });

  it('names the smallest window when system, tools, task and answer room do not fit', () => {
    const plan = fitContext({ system: 'S'.repeat(8000), turns: [], task, tools, contextWindow: 2048 });
    expect(plan.fits).toBe(false);
    expect(plan.minimumWindow).toBeGreaterThan(2048);
    expect(fitContext({ system: 'S'.repeat(8000), turns: [], task, tools, contextWindow: plan.minimumWindow! }).fits).toBe(true);
    expect(fitContext({ system: 'S'.repeat(8000), turns: [], task, tools, contextWindow: plan.minimumWindow! - 256 }).fits).toBe(false);
  });

  it('reaches back into earlier turns when it must, and shortens the long arguments of the calls it stubs', () => {
    const write: ChatMessage[] = [
      { role: 'user', content: 'write it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'w1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'a.ts', content: 'y'.repeat(6000) }) } }],
      },
      { role: 'tool', tool_call_id: 'w1', content: 'Wrote 1 line to a.ts (new file).' },
      { role: 'assistant', content: 'Done.' },
    ];
    const steps = Array.from({ length: 6 }, (_, i) => step(i + 1, 60));
    const plan = fitContext({ system: sys, turns: [write], task, steps, tools, contextWindow: 6000 });
    expect(plan.stubbed[0]?.[0]).toBe(0);
    const call = plan.messages.find((m) => m.role === 'assistant' && m.tool_calls?.[0]?.id === 'w1');
    expect(call && call.role === 'assistant' && call.tool_calls![0]!.function.arguments.length).toBeLessThan(400);
    expect(JSON.parse(call && call.role === 'assistant' ? call.tool_calls![0]!.function.arguments : '')).toMatchObject({ path: 'a.ts' });
  });
});
