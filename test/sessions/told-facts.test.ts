/**
 * Which prompt facts the records say the model knows: the system prompt's (the latest turn that
 * read them afresh, until /clear, /compact or /init), and the last told (notes of answered turns;
 * the system prompt's again after a compaction inside a turn); a fork's copy without them.
 */
import { describe, expect, it } from 'vitest';
import type { PromptFacts } from '../../src/context/prompt-facts.js';
import type { ConversationRecord } from '../../src/sessions/conversation.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';
import { systemFacts, toldFacts, withoutFacts } from '../../src/sessions/told-facts.js';

const at = '2026-03-01T00:00:00.000Z';
const facts = (text: string): PromptFacts => ({
  date: '2026-03-01',
  budget: 1000,
  instructions: [{ path: '/r/AGENTS.md', label: 'AGENTS.md', text, notes: [] }],
});
const turn = (extra: Partial<TurnRecord> = {}, assistant = 'ok'): TurnRecord => ({
  type: 'turn',
  at,
  prompt: [{ type: 'text', text: 'q' }],
  assistant,
  reasoning: '',
  stopReason: 'end_turn',
  ...extra,
});
const A = facts('a');
const B = facts('b');
const C = facts('c');

describe('systemFacts and toldFacts', () => {
  it('are none for a new session or a file saved before facts were', () => {
    for (const records of [[], [turn()]] as ConversationRecord[][]) {
      expect(systemFacts(records)).toBeUndefined();
      expect(toldFacts(records)).toBeUndefined();
    }
  });

  it('keep the first reading for the system prompt and follow the notes for what was told', () => {
    const records = [turn({ facts: A }), turn(), turn({ facts: B, factsNote: 'n1' }), turn()];
    expect(systemFacts(records)).toBe(A);
    expect(toldFacts(records)).toBe(B);
    expect(toldFacts([...records, turn({ facts: C, factsNote: 'n2' })])).toBe(C);
  });

  it('skip a note in a turn that got no answer: it is told again', () => {
    const records = [turn({ facts: A }), turn({ facts: B, factsNote: 'n' }, '')];
    expect(toldFacts(records)).toBe(A);
    // A first turn cancelled before any answer still sent its system prompt.
    expect(systemFacts([turn({ facts: A }, '')])).toBe(A);
    expect(toldFacts([turn({ facts: A }, '')])).toBe(A);
  });

  it('start afresh after /clear, /compact and an /init turn', () => {
    for (const reset of [{ type: 'clear', at }, { type: 'compact', at, summary: 's' }, turn({ renewFacts: true })] as ConversationRecord[]) {
      expect(systemFacts([turn({ facts: A }), reset])).toBeUndefined();
      expect(toldFacts([turn({ facts: A }), reset])).toBeUndefined();
      expect(systemFacts([turn({ facts: A }), reset, turn({ facts: B })])).toBe(B);
    }
  });

  it('fall back to the system prompt after a compaction inside a turn summarised the notes away, unless that turn told its own', () => {
    const compacted = turn({ context: { summary: 'S', summarizedSteps: 1 } });
    expect(toldFacts([turn({ facts: A }), turn({ facts: B, factsNote: 'n' }), compacted])).toBe(A);
    expect(toldFacts([turn({ facts: A }), { ...compacted, facts: C, factsNote: 'n' }])).toBe(C);
    expect(systemFacts([turn({ facts: A }), compacted])).toBe(A);
  });
});

describe('withoutFacts', () => {
  it('copies a turn without its facts, note and renewal; leaves other records and turns without facts as they are', () => {
    const noted = turn({ facts: B, factsNote: 'n', renewFacts: true });
    const copy = withoutFacts(noted);
    expect(copy).toEqual(turn());
    expect(noted.facts).toBe(B);
    const plain = turn();
    expect(withoutFacts(plain)).toBe(plain);
    const clear: ConversationRecord = { type: 'clear', at };
    expect(withoutFacts(clear)).toBe(clear);
  });
});
