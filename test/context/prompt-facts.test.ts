/**
 * The note telling the model what changed since it was last told of the prompt facts: each
 * changed instruction file's text as it reads now (or one line when it is left out), new and
 * deleted files, a new date; nothing when nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { dateOf, factsNote, isPromptFacts, type PromptFacts } from '../../src/context/prompt-facts.js';
import type { InstructionFile } from '../../src/context/instructions.js';

const file = (label: string, text: string, notes: string[] = []): InstructionFile => ({ path: `/repo/${label}`, label, text, notes });
const facts = (instructions: InstructionFile[], date = '2026-03-01'): PromptFacts => ({ date, budget: 32_768, instructions });

describe('factsNote', () => {
  it('says nothing when the files and the date are the same', () => {
    const told = facts([file('AGENTS.md', 'Use two spaces.')]);
    expect(factsNote(told, structuredClone(told))).toBeUndefined();
  });

  it("gives an edited file's text as it reads now, under its name, and says to follow it", () => {
    const note = factsNote(
      facts([file('../AGENTS.md', 'root'), file('AGENTS.md', 'Use two spaces.')]),
      facts([file('../AGENTS.md', 'root'), file('AGENTS.md', 'Use tabs.\n')]),
    );
    expect(note).toBe(
      '[Instruction files changed during this conversation; follow them as they read now (the later, nearer file wins where they differ):]\n\n' +
        '## AGENTS.md (edited)\nUse tabs.',
    );
  });

  it('names new and deleted files, keeping the cut note of a file that is cut', () => {
    const note = factsNote(
      facts([file('AGENTS.md', 'old rules')]),
      facts([file('src/CLAUDE.md', 'x'.repeat(10), ['cut to its first 10 bytes of 5 MiB to fit the context'])]),
    )!;
    expect(note).toContain('## src/CLAUDE.md (new)\nxxxxxxxxxx\n[src/CLAUDE.md: cut to its first 10 bytes of 5 MiB to fit the context]');
    expect(note).toContain('## AGENTS.md (deleted): its instructions no longer apply.');
  });

  it('says in one line when a file became binary, unreadable or a symlink left out', () => {
    const told = facts([file('AGENTS.md', 'rules')]);
    for (const why of ['left out: it is not text (3 KiB of binary data)', 'left out: it cannot be read (EACCES)']) {
      const note = factsNote(told, facts([file('AGENTS.md', '', [why])]))!;
      expect(note.split('\n').at(-1)).toBe(`## AGENTS.md (edited): ${why}`);
    }
    expect(
      factsNote(told, facts([file('AGENTS.md', '')]))!
        .split('\n')
        .at(-1),
    ).toBe('## AGENTS.md (edited): now empty');
  });

  it('tells a new day, alone or after the files', () => {
    const told = facts([file('AGENTS.md', 'a')]);
    expect(factsNote(told, facts([file('AGENTS.md', 'a')], '2026-03-02'))).toBe('[Today is 2026-03-02.]');
    expect(factsNote(told, facts([file('AGENTS.md', 'b')], '2026-03-02'))).toMatch(/\n## AGENTS.md \(edited\)\nb\n\n\[Today is 2026-03-02\.\]$/);
  });
});

describe('prompt facts as saved', () => {
  it('checks what a session file holds', () => {
    expect(isPromptFacts(facts([file('AGENTS.md', 'a', ['n'])]))).toBe(true);
    for (const bad of [null, {}, { date: 'd', budget: 'x', instructions: [] }, { date: 'd', budget: 1, instructions: [{ path: 'p' }] }])
      expect(isPromptFacts(bad)).toBe(false);
    expect(dateOf(new Date('2026-03-01T23:59:59Z'))).toBe('2026-03-01');
  });
});
