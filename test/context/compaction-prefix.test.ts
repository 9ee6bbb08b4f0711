/**
 * The summary request keeps the server's prefix: it is the session's own request (the previous
 * request's messages, byte for byte, with the same tools) with the instruction as the last user
 * message, and the request after the compaction keeps the system message and the tools.
 */
import { describe, expect, it } from 'vitest';
import { COMPACT_INSTRUCTION, STEPS_INSTRUCTION, summaryMessages } from '../../src/context/compaction.js';
import { ContextKeeper, type Prepared } from '../../src/context/context-keeper.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin/registry.js';

const tools = BUILTIN_TOOLS.map(toChatTool);
const system = 'You are a coding agent.';
const task: ChatMessage = { role: 'user', content: 'Find where the configuration is parsed.' };
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${i + 1}\tconst ${tag}${i} = parse(${i}); // ${tag}`).join('\n');

function readStep(keeper: ContextKeeper, k: number, n: number): void {
  const step = keeper.step({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${k}.ts` }) } }],
  });
  step.push({ role: 'tool', tool_call_id: `c${k}`, content: lines(n, `f${k}_`) });
}

const sent = (p: Prepared) => {
  if ('stop' in p) throw new Error(p.stop);
  return p.messages;
};

describe('compaction that keeps the prefix', () => {
  it('asks for the summary with the previous request, its tools and the instruction last, then keeps the system message', async () => {
    const keeper = new ContextKeeper({ system, turns: [], task, contextWindow: 4000 });
    const asked: { messages: ChatMessage[]; withTools: boolean | undefined; previous: ChatMessage[] }[] = [];
    let previous: ChatMessage[] = [];
    const summarize = async (messages: ChatMessage[], withTools?: boolean) => {
      asked.push({ messages, withTools, previous });
      return 'Read f0 to f9; the parser is in src/f3.ts.';
    };
    let after: ChatMessage[] | undefined;
    for (let k = 0; k < 30 && !after; k++) {
      const messages = sent(await keeper.prepare(tools, summarize));
      if (asked.length > 0) after = messages;
      previous = messages;
      readStep(keeper, k, 60);
    }
    expect(asked).toHaveLength(1);
    const [request] = asked;
    expect(request!.withTools).toBe(true);
    // Byte for byte what the server holds, then only the instruction.
    expect(request!.messages.slice(0, -1)).toEqual(request!.previous);
    expect(request!.messages.at(-1)).toEqual({ role: 'user', content: `${COMPACT_INSTRUCTION} ${STEPS_INSTRUCTION}` });
    // After: the same system message, the summary as the answer to the request for it, the task, the current step.
    expect(after!.slice(0, 4)).toEqual([{ role: 'system', content: system }, ...summaryMessages('Read f0 to f9; the parser is in src/f3.ts.'), task]);
    expect(after!.at(-1)).toMatchObject({ role: 'tool' });
  });

  it('at the start of a turn puts the instruction in the place of the task, after the earlier turns as they were sent', async () => {
    // The earlier turns fit (the previous turn's last request held them); with the new task they do not.
    const turns: ChatMessage[][] = Array.from({ length: 10 }, (_, t) => [
      { role: 'user', content: `Question ${t}: ${'why '.repeat(60)}` },
      { role: 'assistant', content: `Answer ${t}: ${'because '.repeat(60)}` },
    ]);
    const long: ChatMessage = { role: 'user', content: `Now ${'please '.repeat(400)}` };
    const keeper = new ContextKeeper({ system, turns, task: long, contextWindow: 4000 });
    let asked: { messages: ChatMessage[]; withTools?: boolean | undefined } | undefined;
    const messages = sent(
      await keeper.prepare(tools, async (m, withTools) => {
        asked = { messages: m, withTools };
        return 'The user asked ten questions about why.';
      }),
    );
    expect(asked?.withTools).toBe(true);
    expect(asked!.messages.slice(0, -1)).toEqual([{ role: 'system', content: system }, ...turns.flat()]);
    expect(asked!.messages.at(-1)).toEqual({ role: 'user', content: COMPACT_INSTRUCTION });
    expect(messages).toEqual([{ role: 'system', content: system }, ...summaryMessages('The user asked ten questions about why.'), long]);
  });

  it('asks with the transcript, without tools, when the own request would not fit as it was sent', async () => {
    // One earlier turn larger than the whole window: the own request would leave it out.
    const turns: ChatMessage[][] = [
      [
        { role: 'user', content: 'Tell me everything.' },
        { role: 'assistant', content: 'word '.repeat(6000) },
      ],
    ];
    const keeper = new ContextKeeper({ system, turns, task, contextWindow: 3000 });
    let withTools: boolean | undefined;
    let last: ChatMessage | undefined;
    sent(
      await keeper.prepare(tools, async (m, w) => {
        withTools = w;
        last = m.at(-1);
        return 'Everything was told.';
      }),
    );
    expect(withTools).toBe(false);
    expect(String(last?.content)).toMatch(/^User: Tell me everything\.[\s\S]*Summarize our conversation so far/);
  });
});
