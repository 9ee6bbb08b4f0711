import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LoopGuard, REPEATS_FOR_LOOP } from '../../src/loop/loop-guard.js';

/** A JSON object written with its keys in a random order and random whitespace. */
function respelled(value: Record<string, unknown>, order: number[], pad: string): string {
  const keys = Object.keys(value);
  const shuffled = keys.map((key, i) => ({ key, rank: order[i % Math.max(1, order.length)] ?? 0 })).sort((a, b) => a.rank - b.rank);
  return `${pad}{${shuffled.map(({ key }) => `${pad}${JSON.stringify(key)}${pad}:${pad}${JSON.stringify(value[key])}`).join(',')}}${pad}`;
}

const args = fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean()), { maxKeys: 4 });

describe('LoopGuard properties', () => {
  it('the same call spelled any way three times in a row stops the loop', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('read_file', 'run_command'),
        args,
        fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: 3, maxLength: 3 }),
        fc.array(fc.constantFrom('', ' ', '\n', '\t '), { minLength: 3, maxLength: 3 }),
        (name, value, orders, pads) => {
          const guard = new LoopGuard();
          const stops = [0, 1, 2].map((i) => guard.afterAnswer([{ name, arguments: respelled(value, orders[i]!, pads[i]!) }]));
          expect(stops.slice(0, REPEATS_FOR_LOOP - 1)).toEqual([undefined, undefined]);
          expect(stops[2]?.reason).toBe('repeat');
        },
      ),
    );
  });

  it('stops exactly when some call comes three times in a row', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom('a', 'b'), { maxLength: 3 }), { maxLength: 8 }), (answers) => {
        const guard = new LoopGuard();
        const flat: string[] = [];
        for (const answer of answers) {
          flat.push(...answer);
          const stop = guard.afterAnswer(answer.map((name) => ({ name, arguments: '{}' })));
          const runs = flat.some((_, i) => i >= 2 && flat[i] === flat[i - 1] && flat[i] === flat[i - 2]);
          if (stop) {
            expect(runs).toBe(true);
            return;
          }
          expect(runs).toBe(false);
        }
      }),
    );
  });
});
