import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { undoLastTurn } from '../../src/app/undo.js';
import { CheckpointRecorder } from '../../src/sessions/checkpoints.js';
import type { Session } from '../../src/sessions/session.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';
import { checkpointingBackend } from '../../src/tools/backends/checkpoint-backend.js';
import { memoryBackend } from '../../test/helpers/memory-backend.js';

const paths = ['/w/a', '/w/b', '/w/c', '/w/d/e'];
const text = fc.string({ maxLength: 20 });
const files = fc.dictionary(fc.constantFrom(...paths), text);
/** One turn's operations: writes (after reading the file or not), and reads. */
const ops = fc.array(fc.record({ path: fc.constantFrom(...paths), content: text, readFirst: fc.boolean() }), { maxLength: 8 });

describe('/undo (property)', () => {
  it('any turns of writes, undone one by one, give back each earlier state exactly, the first one at the end', async () => {
    await fc.assert(
      fc.asyncProperty(files, fc.array(ops, { minLength: 1, maxLength: 3 }), fc.boolean(), async (initial, turns, stat) => {
        const signal = new AbortController().signal;
        const { backend, files: disk } = memoryBackend({ ...initial }, { stat });
        const session: Session = { id: 's', cwd: '/w', createdAt: '', records: [], model: 'm', options: {} };
        const states: Record<string, string>[] = [];
        for (const turn of turns) {
          states.push({ ...disk });
          const recorder = new CheckpointRecorder();
          const wrapped = checkpointingBackend(backend, recorder, async () => undefined);
          for (const op of turn) {
            if (op.readFirst) await wrapped.readTextFile(op.path, signal).catch(() => undefined);
            await wrapped.writeTextFile(op.path, op.content, signal);
          }
          const record: TurnRecord = { type: 'turn', at: '', prompt: [], assistant: 'ok', reasoning: '', stopReason: 'end_turn' };
          const checkpoint = recorder.result();
          if (checkpoint) record.checkpoint = checkpoint;
          session.records.push(record);
        }
        for (let i = turns.length - 1; i >= 0; i--) {
          const said = await undoLastTurn({ session, backend, roots: { cwd: '/w', extra: [] }, signal, saveUndo: async () => undefined });
          expect(said).toMatch(/^Undid/);
          expect(disk).toEqual(states[i]);
        }
        expect(session.records).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
