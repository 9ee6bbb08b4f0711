import { describe, expect, it } from 'vitest';
import { CheckpointRecorder, hashText } from '../../../src/sessions/checkpoints.js';
import { checkpointingBackend } from '../../../src/tools/backends/checkpoint-backend.js';
import { memoryBackend } from '../../helpers/memory-backend.js';

const signal = new AbortController().signal;

describe('checkpointingBackend', () => {
  it('keeps the earlier text once per file, reusing the text a tool just read, and notes commands', async () => {
    const { backend, log } = memoryBackend({ '/w/a': 'old' });
    const recorder = new CheckpointRecorder();
    const notices: string[] = [];
    const wrapped = checkpointingBackend(backend, recorder, async (path, words) => void notices.push(`${path}: ${words}`));
    expect(await wrapped.readTextFile('/w/a', signal)).toBe('old');
    await wrapped.writeTextFile('/w/a', 'one', signal);
    await wrapped.writeTextFile('/w/a', 'two', signal);
    await wrapped.writeTextFile('/w/new', 'created', signal);
    await wrapped.runCommand('make', {} as never);
    // One read (the tool's own), no read of the new file.
    expect(log).toEqual(['read /w/a', 'write /w/a', 'write /w/a', 'write /w/new', 'run make']);
    expect(recorder.result()).toEqual({
      files: [
        { path: '/w/a', before: 'old', after: hashText('two') },
        { path: '/w/new', before: null, after: hashText('created') },
      ],
      commands: ['make'],
    });
    expect(notices).toEqual([]);
  });

  it('reads the file first when no tool just did; a backend that cannot tell reads, and "not found" means new', async () => {
    const { backend, log } = memoryBackend({ '/w/a': 'old', '/w/b': 'other' }, { stat: false });
    const recorder = new CheckpointRecorder();
    const wrapped = checkpointingBackend(backend, recorder, async () => undefined);
    await wrapped.readTextFile('/w/b', signal);
    await wrapped.writeTextFile('/w/a', 'x', signal);
    await wrapped.writeTextFile('/w/c', 'y', signal);
    expect(log).toEqual(['read /w/b', 'read /w/a', 'write /w/a', 'read /w/c', 'write /w/c']);
    expect(recorder.result()!.files.map((f) => f.before)).toEqual(['old', null]);
    // A tool that just found the file missing (write_file's diff) is not followed by a second read.
    await wrapped.readTextFile('/w/d', signal).catch(() => undefined);
    await wrapped.writeTextFile('/w/d', 'z', signal);
    expect(log.slice(5)).toEqual(['read /w/d', 'write /w/d']);
    expect(recorder.result()!.files.at(-1)).toMatchObject({ path: '/w/d', before: null });
  });

  it('a file it cannot keep is said so to the user', async () => {
    const { backend } = memoryBackend({ '/w/img': '\0' }, { binary: ['/w/img'] });
    const recorder = new CheckpointRecorder();
    const notices: string[] = [];
    await checkpointingBackend(backend, recorder, async (path, words) => void notices.push(`${path}: ${words}`)).writeTextFile('/w/img', 'text', signal);
    expect(notices).toEqual(['/w/img: not a text file, so /undo cannot restore it']);
    expect(recorder.result()!.files[0]).toMatchObject({ path: '/w/img', notKept: 'not a text file, so /undo cannot restore it' });
  });
});
