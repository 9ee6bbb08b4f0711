import fc from 'fast-check';
import { it } from 'vitest';
import { fitContext, type ContextFitInput } from '../../src/context/context-fit.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin/registry.js';
import { estimateTokens, estimateTextTokens } from '../../src/context/token-estimate.js';
const builtinChatTools = () => BUILTIN_TOOLS.map(toChatTool);

const text = (max: number) => fc.oneof(fc.string({ maxLength: max }), fc.string({ unit: 'grapheme', maxLength: Math.floor(max / 4) }));
/** Tool output: numbered lines, or any text, up to a few thousand lines. */
const output = fc.oneof(
  fc.integer({ min: 0, max: 1200 }).map((n) => Array.from({ length: n }, (_, i) => `${i + 1}\tline ${i + 1} of some file`).join('\n')),
  text(2000),
);
const toolName = fc.constantFrom('read_file', 'search_files', 'run_command', 'list_directory', 'mcp__x__y');
const args = fc.dictionary(fc.constantFrom('path', 'pattern', 'command', 'content'), text(600)).map((o) => JSON.stringify(o));

let ids = 0;
/** One tool step: an assistant message with 1–3 calls, then their results in order. */
const toolStep = fc
  .tuple(fc.array(fc.tuple(toolName, args, output), { minLength: 1, maxLength: 3 }), fc.option(text(200), { nil: null }))
  .map(([calls, said]) => {
    const named = calls.map(([name, a, out]) => ({ id: `call_${ids++}`, name, a, out }));
    const messages: ChatMessage[] = [
      { role: 'assistant', content: said, tool_calls: named.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.a } })) },
    ];
    for (const c of named) messages.push({ role: 'tool', tool_call_id: c.id, content: c.out });
    return messages;
  });
const turn = fc
  .tuple(text(800), fc.array(toolStep, { maxLength: 3 }), text(800))
  .map(([asked, steps, answer]): ChatMessage[] => [{ role: 'user', content: asked }, ...steps.flat(), { role: 'assistant', content: answer }]);
const input: fc.Arbitrary<ContextFitInput> = fc.record({
  system: fc.option(text(2000), { nil: undefined }),
  summary: fc.option(text(3000), { nil: undefined }),
  turns: fc.array(turn, { maxLength: 6 }),
  task: text(6000).map((content) => ({ role: 'user' as const, content })),
  steps: fc.array(toolStep, { maxLength: 12 }),
  tools: fc.constantFrom(undefined, builtinChatTools()),
  contextWindow: fc.integer({ min: 1000, max: 64_000 }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
  calibration: fc.option(fc.record({ estimated: fc.integer({ min: 0, max: 100_000 }), actual: fc.integer({ min: 0, max: 100_000 }) }), { nil: undefined }),
  stubbed: fc.option(
    fc.oneof(
      fc.integer({ min: 0, max: 30 }),
      fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }).map((ends) => {
        const sorted = [...ends].sort((a, b) => a - b);
        const ranges: [number, number][] = [];
        for (let k = 0; k + 1 < sorted.length; k += 2)
          if (sorted[k + 1]! > sorted[k]! && (ranges.at(-1)?.[1] ?? -1) < sorted[k]!) ranges.push([sorted[k]!, sorted[k + 1]!]);
        return ranges;
      }),
    ),
    { nil: undefined },
  ),
});

/** The uncalibrated tokens the current step needs at least: its assistant message, and a note per result. */
it('t', () => {
  let t0 = performance.now();
  const samples = fc.sample(fc.tuple(input, toolStep), { numRuns: 1000, seed: 1 });
  const gen = performance.now() - t0;
  t0 = performance.now();
  let pass = 0;
  for (const [i] of samples) { const a = fitContext(i); if (a.fits && a.droppedSteps === 0 && a.droppedTurns === 0 && (i.steps?.length ?? 0) > 0) pass++; }
  const fit = performance.now() - t0;
  t0 = performance.now();
  for (const [i] of samples) { estimateTokens([...(i.turns ?? []).flat(), ...(i.steps ?? []).flat(), i.task]); }
  const est = performance.now() - t0;
  const texts: string[] = [];
  for (const [i] of samples) for (const m of [...(i.turns ?? []).flat(), ...(i.steps ?? []).flat(), i.task]) { if (typeof m.content === 'string') texts.push(m.content); if ('tool_calls' in m && m.tool_calls) texts.push(JSON.stringify(m.tool_calls)); }
  let chars = 0; for (const t of texts) chars += t.length;
  t0 = performance.now(); let n = 0; for (const t of texts) n += estimateTextTokens(t); const tt = performance.now() - t0;
  t0 = performance.now(); for (const t of texts) n += estimateTextTokens(t); const tt2 = performance.now() - t0;
  console.log({ gen, fit, est, pass, chars, tt, tt2, n });
});
