import { describe, expect, it } from 'vitest';
import { CHECKPOINT_FILE_MAX_BYTES, CHECKPOINT_TURN_MAX_BYTES, CheckpointRecorder, hashText, isTurnCheckpoint } from '../../src/sessions/checkpoints.js';
import { parseRecord } from '../../src/sessions/parse-record.js';
import { toStoredSession } from '../../src/sessions/session-text.js';

describe('CheckpointRecorder', () => {
  it('keeps the text before the first change only, and a hash of the last text written', () => {
    const recorder = new CheckpointRecorder();
    expect(recorder.keep('/w/a', 'old')).toBeUndefined();
    recorder.wrote('/w/a', 'mid');
    recorder.keep('/w/a', 'mid');
    recorder.wrote('/w/a', 'new');
    recorder.keep('/w/b', null);
    recorder.wrote('/w/b', 'created');
    expect(recorder.result()).toEqual({
      files: [
        { path: '/w/a', before: 'old', after: hashText('new') },
        { path: '/w/b', before: null, after: hashText('created') },
      ],
    });
  });

  it('notes commands, leaves out files whose write never happened, and is empty for a turn that changed nothing', () => {
    const recorder = new CheckpointRecorder();
    expect(recorder.result()).toBeUndefined();
    recorder.keep('/w/failed', 'x');
    expect(recorder.result()).toBeUndefined();
    recorder.ranCommand('npm test');
    expect(recorder.result()).toEqual({ files: [], commands: ['npm test'] });
  });

  it('does not keep a file over the per-file limit, nor past the turn limit, and says why', () => {
    const recorder = new CheckpointRecorder();
    expect(recorder.keep('/w/big', 'x'.repeat(CHECKPOINT_FILE_MAX_BYTES + 1))).toMatch(/too large to keep for \/undo \(1\.0 MiB; the limit is 1 MiB a file\)/);
    const chunk = 'y'.repeat(CHECKPOINT_FILE_MAX_BYTES);
    for (let i = 0; i < CHECKPOINT_TURN_MAX_BYTES / CHECKPOINT_FILE_MAX_BYTES; i++) expect(recorder.keep(`/w/${i}`, chunk)).toBeUndefined();
    expect(recorder.keep('/w/one-more', 'z')).toMatch(/reached 4 MiB/);
    expect(recorder.keep('/w/binary', { notKept: 'not a text file' })).toBe('not a text file');
    for (const path of ['/w/big', '/w/one-more', '/w/binary', '/w/0']) recorder.wrote(path, 'n');
    const files = recorder.result()!.files;
    expect(files.find((f) => f.path === '/w/big')).toEqual({ path: '/w/big', notKept: expect.stringContaining('too large'), after: hashText('n') });
    expect(files.find((f) => f.path === '/w/0')!.before).toBe(chunk);
    expect(isTurnCheckpoint(recorder.result())).toBe(true);
  });
});

describe('checkpoints and plans in session files', () => {
  const turn = { type: 'turn', at: '2026-01-01T00:00:00Z', prompt: [{ type: 'text', text: 'p' }], assistant: 'a', reasoning: '', stopReason: 'end_turn' };
  it('keeps a valid plan and checkpoint, and drops only an invalid one', () => {
    const plan = [{ content: 'x', status: 'pending', priority: 'medium' }];
    const checkpoint = { files: [{ path: '/w/a', before: null, after: 'h' }], commands: ['ls'] };
    expect(parseRecord({ ...turn, plan, checkpoint })).toMatchObject({ plan, checkpoint });
    const bad = parseRecord({ ...turn, plan: [{ content: 'x', status: 'done' }], checkpoint: { files: [{ path: '/w/a', after: 'h' }] } }) as unknown as Record<
      string,
      unknown
    >;
    expect(bad).toMatchObject({ assistant: 'a' });
    expect(bad.plan).toBeUndefined();
    expect(bad.checkpoint).toBeUndefined();
  });

  it('an undo record takes the latest turn still there out of the loaded conversation', () => {
    const t = (text: string) => ({ ...turn, prompt: [{ type: 'text' as const, text }] }) as never;
    const undo = { type: 'undo', at: '2026-01-01T00:00:05Z' } as const;
    const loaded = toStoredSession('s', {
      header: { cwd: '/w', createdAt: '2026-01-01T00:00:00Z' },
      records: [t('1'), t('2'), undo, t('3'), undo, undo, undo],
    });
    expect(loaded.records).toEqual([]);
    const partial = toStoredSession('s', { header: { cwd: '/w', createdAt: '2026-01-01T00:00:00Z' }, records: [t('1'), t('2'), undo, t('3')] });
    expect(partial.records.map((r) => (r as { prompt: { text: string }[] }).prompt[0]!.text)).toEqual(['1', '3']);
    expect(partial.updatedAt).toBe(turn.at);
  });
});
