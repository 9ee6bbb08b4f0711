import { describe, expect, it } from 'vitest';
import { BEHIND_A_RESET, NOTHING_TO_UNDO, planAfterUndo, undoLastTurn } from '../../src/app/undo.js';
import { hashText } from '../../src/sessions/checkpoints.js';
import type { Session } from '../../src/sessions/session.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';
import { memoryBackend } from '../helpers/memory-backend.js';

const roots = { cwd: '/w', extra: [] };
const signal = new AbortController().signal;
const turn = (text: string, checkpoint?: TurnRecord['checkpoint']): TurnRecord => ({
  type: 'turn',
  at: '2026-01-01T00:00:00Z',
  prompt: [{ type: 'text', text }],
  assistant: 'ok',
  reasoning: '',
  stopReason: 'end_turn',
  ...(checkpoint ? { checkpoint } : {}),
});
const session = (records: Session['records']): Session => ({ id: 's', cwd: '/w', createdAt: '', records, model: 'm', options: {} });

async function undo(s: Session, files: Record<string, string>) {
  const memory = memoryBackend(files);
  let saved = 0;
  const text = await undoLastTurn({ session: s, backend: memory.backend, roots, signal, saveUndo: async () => void saved++ });
  return { text, saved, ...memory };
}

describe('undoLastTurn', () => {
  it('restores changed files, removes created ones, drops the turn and says what commands it cannot undo', async () => {
    const s = session([
      turn('first'),
      turn('second', {
        files: [
          { path: '/w/a.txt', before: 'old', after: hashText('new') },
          { path: '/w/n.txt', before: null, after: hashText('made') },
        ],
        commands: ['npm install'],
      }),
    ]);
    const { text, saved, files, log } = await undo(s, { '/w/a.txt': 'new', '/w/n.txt': 'made' });
    expect(files).toEqual({ '/w/a.txt': 'old' });
    expect(log.filter((l) => !l.startsWith('read'))).toEqual(['write /w/a.txt', 'delete /w/n.txt']);
    expect(s.records.map((r) => (r as TurnRecord).prompt[0])).toEqual([{ type: 'text', text: 'first' }]);
    expect(saved).toBe(1);
    expect(text).toBe(
      'Undid the last turn ("second"): it is no longer part of the conversation.\nRestored: a.txt.\n' +
        'Removed (created by that turn): n.txt.\nIt also ran a command (`npm install`); what it changed cannot be undone.',
    );
  });

  it('changes nothing when a file was changed (or removed) since the turn, and names it', async () => {
    const s = session([
      turn('t', {
        files: [
          { path: '/w/a.txt', before: 'old', after: hashText('new') },
          { path: '/w/b.txt', before: 'b0', after: hashText('b1') },
          { path: '/w/c.txt', before: 'c0', after: hashText('c1') },
        ],
      }),
    ]);
    const { text, saved, files } = await undo(s, { '/w/a.txt': 'edited by the user', '/w/c.txt': 'c1' });
    expect(text).toMatch(/^\/undo stopped: a\.txt, b\.txt were changed since that turn\. Nothing was restored/);
    expect(files).toEqual({ '/w/a.txt': 'edited by the user', '/w/c.txt': 'c1' });
    expect(s.records).toHaveLength(1);
    expect(saved).toBe(0);
  });

  it('after an /undo cancelled part way, files already back as they were do not stop the next /undo', async () => {
    const s = session([
      turn('t', {
        files: [
          { path: '/w/a.txt', before: 'old', after: hashText('new') },
          { path: '/w/n.txt', before: null, after: hashText('made') },
          { path: '/w/b.txt', before: 'b0', after: hashText('b1') },
        ],
      }),
    ]);
    const { text, files } = await undo(s, { '/w/a.txt': 'old', '/w/b.txt': 'b1' });
    expect(text).toMatch(/^Undid the last turn/);
    expect(files).toEqual({ '/w/a.txt': 'old', '/w/b.txt': 'b0' });
    expect(s.records).toEqual([]);
  });

  it('refuses a file outside the workspace (a fork in another cwd) and says so', async () => {
    const s = session([turn('t', { files: [{ path: '/elsewhere/a.txt', before: 'old', after: hashText('new') }] })]);
    const { text, files } = await undo(s, { '/elsewhere/a.txt': 'new' });
    expect(text).toMatch(/^\/undo stopped: .*a\.txt is outside this session's workspace\. Nothing was restored/);
    expect(files).toEqual({ '/elsewhere/a.txt': 'new' });
  });

  it('goes back no further than a /clear or /compact made after the last turn: nothing changed, nothing saved', async () => {
    for (const reset of [
      { type: 'clear' as const, at: '2026-01-01T00:00:01Z' },
      { type: 'compact' as const, at: '2026-01-01T00:00:01Z', summary: 'we changed a.txt' },
    ]) {
      const s = session([turn('t', { files: [{ path: '/w/a.txt', before: 'old', after: hashText('new') }] }), reset]);
      const { text, saved, files } = await undo(s, { '/w/a.txt': 'new' });
      expect(text).toBe(BEHIND_A_RESET);
      expect(files).toEqual({ '/w/a.txt': 'new' });
      expect(s.records).toHaveLength(2);
      expect(saved).toBe(0);
    }
  });

  it('with no turn: one line, nothing saved', async () => {
    const { text, saved } = await undo(session([{ type: 'clear', at: '' }]), {});
    expect(text).toBe(NOTHING_TO_UNDO);
    expect(saved).toBe(0);
  });

  it('a turn without changes is taken out all the same; a file not kept is named', async () => {
    const plain = session([turn('hello')]);
    expect((await undo(plain, {})).text).toMatch(/It changed no files\./);
    expect(plain.records).toEqual([]);
    const big = session([turn('t', { files: [{ path: '/w/big.bin', notKept: 'too large to keep for /undo', after: hashText('x') }] })]);
    expect((await undo(big, { '/w/big.bin': 'x' })).text).toMatch(/Not restored: big\.bin \(too large to keep for \/undo\)\./);
  });
});

describe('planAfterUndo', () => {
  const step = (content: string) => ({ content, priority: 'medium' as const, status: 'pending' as const });
  it('sends nothing when there was no plan before and none after (no empty plan block)', () => {
    expect(planAfterUndo([], [])).toBeUndefined();
  });
  it('sends nothing when the plan is the same, even as another array', () => {
    expect(planAfterUndo([step('a')], [step('a')])).toBeUndefined();
  });
  it('sends the older plan when the undone turn changed it, and [] when it made the only one', () => {
    expect(planAfterUndo([step('b')], [step('a')])).toEqual([step('a')]);
    expect(planAfterUndo([step('a')], [])).toEqual([]);
  });
});
