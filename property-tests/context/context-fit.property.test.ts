/**
 * The context planner: for any history (turns with tool calls, steps of this turn)
 * and any window above the minimum, the request fits the budget, keeps the system prompt, the
 * task and the current step's results, sends every tool result after its call, and is
 * deterministic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitContext, RESULT_SHARE, type ContextFitInput } from '../../src/context/context-fit.js';
import { calibrationFactor, estimateMessageTokens, estimateTokens, estimateToolTokens, promptBudget } from '../../src/context/token-estimate.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { toChatTool } from '../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtin/registry.js';

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
const currentNeeds = (steps: ContextFitInput['steps']) => {
  const current = steps?.at(-1) ?? [];
  return current.reduce((n, m) => n + (m.role === 'tool' ? 80 : estimateMessageTokens(m)), 0);
};

describe('fitContext (property)', () => {
  it('fits any history in any window above the minimum, keeping system prompt, task and the current step', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = fitContext(i);
        const factor = calibrationFactor(i.calibration);
        const budget = promptBudget(i.contextWindow!, i.maxTokens);
        expect(plan.budget).toBe(budget);
        expect(plan.rawEstimatedTokens).toBe(estimateTokens(plan.messages) + estimateToolTokens(i.tools));
        expect(plan.estimatedTokens).toBe(Math.ceil(plan.rawEstimatedTokens * factor));
        if (plan.fits) expect(plan.estimatedTokens).toBeLessThanOrEqual(budget);
        // Above the minimum: the fixed part and the current step's calls (with a note per result) fit.
        const bare = fitContext({ ...i, turns: [], steps: [] });
        if (bare.fits && bare.rawEstimatedTokens + currentNeeds(i.steps) <= Math.floor(budget / factor)) expect(plan.fits).toBe(true);
        if (!bare.fits) expect(plan.minimumWindow === undefined || plan.minimumWindow > i.contextWindow!).toBe(true);
        if (plan.minimumWindow !== undefined) return;
        // The system prompt first, the task (verbatim unless cut for being over half the window).
        if (i.system) expect(plan.messages[0]!.role === 'system' && plan.messages[0]!.content.startsWith(i.system)).toBe(true);
        if (!plan.taskCut) expect(plan.messages).toContainEqual(i.task);
        expect(plan.messages.filter((m) => m.role === 'user' && (m === i.task || plan.taskCut)).length).toBeGreaterThan(0);
        // The current step: its assistant message and one result per call, last, in order.
        const current = i.steps?.at(-1);
        if (current) {
          const tail = plan.messages.slice(-current.length);
          // Results under their share are sent whole when the step fits beside the fixed part.
          const wholeStepFits = bare.fits && bare.rawEstimatedTokens + current.reduce((n, m) => n + estimateMessageTokens(m), 0) <= Math.floor(budget / factor);
          expect(tail[0]).toEqual(current[0]);
          tail.slice(1).forEach((m, k) => {
            const original = current[k + 1] as Extract<ChatMessage, { role: 'tool' }>;
            expect(m.role === 'tool' && m.tool_call_id === original.tool_call_id).toBe(true);
            if (wholeStepFits && estimateMessageTokens(original) <= Math.floor(budget * RESULT_SHARE)) expect(m).toEqual(original);
          });
        }
        // Every tool result follows the assistant message that made its call.
        const called = new Set<string>();
        for (const m of plan.messages) {
          if (m.role === 'assistant') for (const c of m.tool_calls ?? []) called.add(c.id);
          if (m.role === 'tool') expect(called.has(m.tool_call_id)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic and never changes its input', () => {
    fc.assert(
      fc.property(input, (i) => {
        const copy = structuredClone(i);
        const a = fitContext(i);
        expect(i).toEqual(copy);
        expect(fitContext(copy)).toEqual(a);
      }),
      { numRuns: 50 },
    );
  });

  it('keeps its stubs: planning again with the stub count it gave changes nothing', () => {
    fc.assert(
      fc.property(input, (i) => {
        const a = fitContext(i);
        const b = fitContext({ ...i, stubbed: a.stubbed });
        expect(b.messages).toEqual(a.messages);
        expect(b.stubbed).toEqual(a.stubbed);
      }),
      { numRuns: 50 },
    );
  });

  it('only adds stubs, and a next step that needs no new ones repeats the request before it as its opening messages', () => {
    fc.assert(
      fc.property(input, toolStep, (i, next) => {
        const a = fitContext(i);
        fc.pre(a.fits && a.droppedSteps === 0 && a.droppedTurns === 0 && (i.steps?.length ?? 0) > 0);
        const b = fitContext({ ...i, steps: [...(i.steps ?? []), next], stubbed: a.stubbed });
        for (const [from, to] of a.stubbed) for (let k = from; k < to; k++) expect(b.stubbed.some(([f, t]) => f <= k && k < t)).toBe(true);
        // Cut only where the last step's results were cut to share what was left: they are sent whole from now on.
        const lastCut = (i.steps!.at(-1) ?? []).some((m) => m.role === 'tool' && !a.messages.includes(m) && !b.messages.some((x) => x === m));
        if (JSON.stringify(b.stubbed) === JSON.stringify(a.stubbed) && b.droppedSteps === 0 && b.droppedTurns === 0 && !lastCut && b.fits)
          expect(b.messages.slice(0, a.messages.length)).toEqual(a.messages);
      }),
      { numRuns: 200 },
    );
  });
});
