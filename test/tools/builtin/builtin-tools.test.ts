import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltinToolName } from '../../../src/tools/builtin/registry.js';
import { createLocalBackend } from '../../../src/tools/backends/local-backend.js';
import type { ToolSettings } from '../../../src/tools/builtin/tool-context.js';
import { failedOutcome, runTool, type ToolRunContext } from '../../../src/tools/tool.js';
import { builtin, runContext } from '../../helpers/builtin-tool.js';
import type { CommandOptions, ToolBackend } from '../../../src/tools/backends/tool-backend.js';

let base: string;
let ws: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'oa-builtin-')));
  ws = path.join(base, 'ws');
  await mkdir(ws);
  await writeFile(path.join(base, 'secret.txt'), 'secret\n');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

/** Where a call acts (the workspace `ws`, local files unless a backend is given), its settings, and what the runner gives its run. */
interface Context extends Partial<ToolRunContext> {
  backend?: ToolBackend;
  settings?: ToolSettings;
}
const ctx = (extra: Context = {}) => extra;
/** A call as the runner makes it: arguments checked once, then run. */
async function run(name: BuiltinToolName, args: Record<string, unknown>, { backend, settings, ...context }: Context) {
  const roots = { cwd: ws, extra: [] };
  const tool = builtin(name, { backend: backend ?? createLocalBackend(roots), roots, settings: settings ?? {} });
  const checked = tool.check(args, false);
  return checked.ok ? runTool(tool, checked.args, runContext(context)) : failedOutcome(checked.error);
}
const lines = (n: number) => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  it('gives the model numbered lines and the client the plain text', async () => {
    await writeFile(path.join(ws, 'a.txt'), 'one\ntwo\r\nthree\nfour\n');
    const whole = await run('read_file', { path: 'a.txt' }, ctx());
    expect(whole).toMatchObject({ failed: false, forModel: '1\tone\n2\ttwo\n3\tthree\n4\tfour', locations: [{ path: path.join(ws, 'a.txt'), line: 1 }] });
    expect(whole.content).toEqual([{ type: 'content', content: { type: 'text', text: '```\none\ntwo\nthree\nfour\n```' } }]);
    expect(whole.rawOutput).toMatchObject({ path: path.join(ws, 'a.txt'), lines: 4, totalLines: 4 });
    const part = await run('read_file', { path: 'a.txt', offset: 2, limit: 2 }, ctx());
    expect(part.forModel).toBe('2\ttwo\n3\tthree\n[lines 2–3 of 4]');
    expect(part.locations).toEqual([{ path: path.join(ws, 'a.txt'), line: 2 }]);
  });

  it('pages a huge file: capped with the offset to continue, then read by offset/limit', async () => {
    await writeFile(path.join(ws, 'big.txt'), lines(5000));
    const first = await run('read_file', { path: 'big.txt' }, ctx());
    expect(first.forModel).toContain(
      '1000\trow 1000\n[... 3,000 lines omitted; use offset/limit to read them (they start at offset 1001) ...]\n4001\trow 4001',
    );
    expect(first.rawOutput).toMatchObject({ truncated: true, totalLines: 5000 });
    const client = first.content[0];
    expect(client?.type === 'content' && client.content.type === 'text' && client.content.text.split('\n')).toHaveLength(5002);
    const page = await run('read_file', { path: 'big.txt', offset: 1001, limit: 3 }, ctx());
    expect(page.forModel).toBe('1001\trow 1001\n1002\trow 1002\n1003\trow 1003\n[lines 1001–1003 of 5,000]');
    const past = await run('read_file', { path: 'big.txt', offset: 6000 }, ctx());
    expect(past).toMatchObject({ failed: true, forModel: 'offset 6000 is past the end of big.txt, which has 5,000 lines.' });
  });

  it('fails with a message for binary files, escapes and missing files, reading nothing outside', async () => {
    await writeFile(path.join(ws, 'x.bin'), Buffer.from([1, 0, 2]));
    expect(await run('read_file', { path: 'x.bin' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('binary file (3 bytes); not shown'),
    });
    const outside = await run('read_file', { path: '../secret.txt' }, ctx());
    expect(outside.failed).toBe(true);
    expect(outside.forModel).toContain(`${path.join(base, 'secret.txt')} is outside the workspace; allowed: ${ws}`);
    expect(outside.content).toEqual([{ type: 'content', content: { type: 'text', text: outside.forModel } }]);
    expect(await run('read_file', { path: 'nope.txt' }, ctx())).toMatchObject({ failed: true, forModel: `no such file: ${path.join(ws, 'nope.txt')}` });
  });

  it('fails on bad arguments with the parameters listed', async () => {
    const result = await run('read_file', { offset: 1 }, ctx());
    expect(result).toMatchObject({ failed: true, forModel: expect.stringContaining('read_file needs "path" (string)') });
  });
});

describe('write_file and edit_file', () => {
  it('writes a new file in new directories, then replaces it, with diffs', async () => {
    const created = await run('write_file', { path: 'deep/dir/n.txt', content: 'a\nb\n' }, ctx());
    const file = path.join(ws, 'deep/dir/n.txt');
    expect(created).toMatchObject({
      failed: false,
      forModel: 'Wrote 2 lines to deep/dir/n.txt (new file).',
      content: [{ type: 'diff', path: file, oldText: null, newText: 'a\nb\n' }],
    });
    const replaced = await run('write_file', { path: file, content: 'c\n' }, ctx());
    expect(replaced).toMatchObject({
      forModel: 'Wrote 1 line to deep/dir/n.txt (replaced 2 lines).',
      content: [{ type: 'diff', oldText: 'a\nb\n', newText: 'c\n' }],
    });
    expect(await readFile(file, 'utf8')).toBe('c\n');
    expect(await run('write_file', { path: '/tmp/../' + path.join(base, 'x.txt'), content: 'x' }, ctx())).toMatchObject({ failed: true });
  });

  it('every count in the write, edit and read results agrees with its noun', async () => {
    const file = path.join(ws, 'one.txt');
    expect((await run('write_file', { path: file, content: 'a\n' }, ctx())).forModel).toBe('Wrote 1 line to one.txt (new file).');
    expect((await run('write_file', { path: file, content: 'b\n' }, ctx())).forModel).toBe('Wrote 1 line to one.txt (replaced 1 line).');
    expect((await run('write_file', { path: file, content: 'c\nd\n' }, ctx())).forModel).toBe('Wrote 2 lines to one.txt (replaced 1 line).');
    expect((await run('write_file', { path: file, content: 'e\n' }, ctx())).forModel).toBe('Wrote 1 line to one.txt (replaced 2 lines).');
    expect((await run('edit_file', { path: file, old_string: 'e', new_string: 'f' }, ctx())).forModel).toMatch(/^Edited one\.txt: 1 replacement\./);
    expect((await run('read_file', { path: file, offset: 5 }, ctx())).forModel).toBe('offset 5 is past the end of one.txt, which has 1 line.');
    await writeFile(file, 'a\nb\nc\n');
    expect((await run('read_file', { path: file, offset: 2, limit: 1 }, ctx())).forModel).toBe('2\tb\n[line 2 of 3]');
  });

  it('edits with a whole-file diff and shows the changed lines', async () => {
    const file = path.join(ws, 'e.ts');
    await writeFile(file, lines(10));
    const result = await run('edit_file', { path: 'e.ts', old_string: 'row 5\n', new_string: 'row five\nrow 5b\n' }, ctx());
    expect(result.failed).toBe(false);
    expect(result.forModel).toBe(
      'Edited e.ts: 1 replacement.\nThe changed part now reads (lines 2–9):\n2\trow 2\n3\trow 3\n4\trow 4\n5\trow five\n6\trow 5b\n7\trow 6\n8\trow 7\n9\trow 8',
    );
    expect(result.content).toEqual([{ type: 'diff', path: file, oldText: lines(10), newText: lines(10).replace('row 5\n', 'row five\nrow 5b\n') }]);
    expect(result.locations).toEqual([{ path: file, line: 5 }]);
  });

  it('fails when old_string is missing or not unique, and replaces all when asked', async () => {
    const file = path.join(ws, 'e.txt');
    await writeFile(file, 'x = 1\nx = 1\n');
    expect(await run('edit_file', { path: 'e.txt', old_string: 'y', new_string: 'z' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('old_string was not found in e.txt'),
    });
    expect(await run('edit_file', { path: 'e.txt', old_string: 'x = 1', new_string: 'x = 2' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('found 2 times'),
    });
    expect(await readFile(file, 'utf8')).toBe('x = 1\nx = 1\n');
    expect(await run('edit_file', { path: 'e.txt', old_string: 'x = 1', new_string: 'x = 2', replace_all: 'true' }, ctx())).toMatchObject({
      failed: false,
      forModel: expect.stringMatching(/^Edited e.txt: 2 replacements/),
    });
    expect(await readFile(file, 'utf8')).toBe('x = 2\nx = 2\n');
  });

  it('creates a missing file from an empty old_string, and otherwise points at write_file', async () => {
    expect(await run('edit_file', { path: 'new.txt', old_string: 'a', new_string: 'b' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('To create a file, use write_file'),
    });
    expect(await run('edit_file', { path: 'new.txt', old_string: '', new_string: 'hello\n' }, ctx())).toMatchObject({
      failed: false,
      content: [{ type: 'diff', oldText: null, newText: 'hello\n' }],
    });
    expect(await readFile(path.join(ws, 'new.txt'), 'utf8')).toBe('hello\n');
    expect(await run('edit_file', { path: 'new.txt', old_string: '', new_string: 'x' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('old_string is empty'),
    });
  });
});

describe('list_directory and search_files', () => {
  it('list and search as the runner runs them', async () => {
    await mkdir(path.join(ws, 'src'));
    await writeFile(path.join(ws, 'src', 'a.ts'), 'hello world\n');
    expect(await run('list_directory', {}, ctx())).toMatchObject({ failed: false, forModel: './\nsrc/', rawOutput: { entries: 1 } });
    expect(await run('search_files', { pattern: 'wor+ld', glob: '*.ts' }, ctx())).toMatchObject({ failed: false, forModel: 'src/a.ts:1: hello world' });
    expect(await run('search_files', { pattern: '(' }, ctx())).toMatchObject({ failed: true, forModel: expect.stringContaining('invalid regular expression') });
    // A glob alone lists files; neither is a failure the model can act on.
    expect(await run('search_files', { glob: '*.ts' }, ctx())).toMatchObject({ failed: false, forModel: 'src/a.ts' });
    expect(await run('search_files', {}, ctx())).toMatchObject({ failed: true, forModel: expect.stringContaining('needs a pattern') });
    expect(await run('list_directory', { path: '..' }, ctx())).toMatchObject({ failed: true });
  });
});

describe.skipIf(process.platform === 'win32')('run_command', () => {
  it('reports exit codes and output, failing on non-zero', async () => {
    const ok = await run('run_command', { command: 'echo hi' }, ctx());
    expect(ok).toMatchObject({ failed: false, forModel: 'Exit code 0\nhi\n', rawOutput: { exitCode: 0, signal: null, timedOut: false, truncated: false } });
    expect(ok.content).toEqual([{ type: 'content', content: { type: 'text', text: '```console\nhi\n```\nExit code 0' } }]);
    await expect(ok.release?.()).resolves.toBeUndefined();
    expect(await run('run_command', { command: 'exit 2' }, ctx())).toMatchObject({ failed: true, forModel: 'Exit code 2\n(no output)' });
  });

  it('caps output for the model and keeps the tail by bytes', async () => {
    const capped = await run('run_command', { command: 'seq 1 100' }, ctx({ settings: { limits: { maxBytes: 10_000, maxLines: 10 } } }));
    expect(capped.forModel).toBe('Exit code 0\n1\n2\n3\n4\n5\n[... 90 lines omitted ...]\n96\n97\n98\n99\n100\n');
    const tail = await run('run_command', { command: 'seq 1 1000' }, ctx({ settings: { outputByteLimit: 20 } }));
    expect(tail.forModel).toMatch(/^Exit code 0\n\[earlier output dropped; only the last 20 bytes were kept\]\n[\d\n]*998\n999\n1000\n$/);
    expect(tail.rawOutput).toMatchObject({ truncated: true });
  });

  it('kills at timeout_ms and runs in a confined cwd', async () => {
    const slow = await run('run_command', { command: 'sleep 30', timeout_ms: 300 }, ctx());
    expect(slow).toMatchObject({ failed: true, forModel: expect.stringMatching(/^Killed after 0\.3 s \(timeout\)/), rawOutput: { timedOut: true } });
    await mkdir(path.join(ws, 'sub'));
    expect((await run('run_command', { command: 'pwd', cwd: 'sub' }, ctx())).forModel).toBe(`Exit code 0\n${path.join(ws, 'sub')}\n`);
    expect(await run('run_command', { command: 'pwd', cwd: '..' }, ctx())).toMatchObject({
      failed: true,
      forModel: expect.stringContaining('outside the workspace'),
    });
  });

  it('rejects with the abort reason when cancelled', async () => {
    const controller = new AbortController();
    const running = run('run_command', { command: 'sleep 30' }, ctx({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('cancelled')), 100);
    await expect(running).rejects.toThrow('cancelled');
  });
});

describe('with a client terminal', () => {
  it('embeds the terminal, passes the release through and does not confine the cwd locally', async () => {
    const seen: { cwd?: string; terminals: string[]; released: number } = { terminals: [], released: 0 };
    const backend: ToolBackend = {
      where: { read: 'client', write: 'client', terminal: 'client' },
      readTextFile: async () => '',
      writeTextFile: async () => undefined,
      runCommand: async (_command: string, options: CommandOptions) => {
        seen.cwd = options.cwd;
        await options.onStarted?.('term-1');
        return { output: 'out', truncated: false, exitCode: 1, signal: null, timedOut: false, release: async () => void seen.released++ };
      },
    };
    const result = await run('run_command', { command: 'make', cwd: '/elsewhere' }, ctx({ backend, onTerminal: async (id) => void seen.terminals.push(id) }));
    expect(result).toMatchObject({ failed: true, forModel: 'Exit code 1\nout', content: [{ type: 'terminal', terminalId: 'term-1' }] });
    expect(seen).toMatchObject({ cwd: '/elsewhere', terminals: ['term-1'] });
    await result.release?.();
    expect(seen.released).toBe(1);
  });
});

describe('with a client file system', () => {
  it('writes a new file even when the client answers the old-text read with its own error', async () => {
    const writes: [string, string][] = [];
    const backend: ToolBackend = {
      where: { read: 'client', write: 'client', terminal: 'local' },
      readTextFile: async () => {
        throw Object.assign(new Error('Resource not found'), { code: -32002 });
      },
      writeTextFile: async (file, content) => void writes.push([file, content]),
      runCommand: async () => {
        throw new Error('unused');
      },
    };
    const result = await run('write_file', { path: 'n.txt', content: 'x' }, ctx({ backend }));
    expect(result).toMatchObject({ failed: false, content: [{ type: 'diff', oldText: null, newText: 'x' }] });
    expect(writes).toEqual([[path.join(ws, 'n.txt'), 'x']]);
    // Paths are confined before the client is asked, whatever it would allow.
    expect(await run('write_file', { path: '../x.txt', content: 'x' }, ctx({ backend }))).toMatchObject({ failed: true });
    expect(writes).toHaveLength(1);
  });
});

describe('read_file through a client file system, by lines', () => {
  /** A client that keeps one file of `n` lines and answers `fs/read_text_file` with `line`/`limit` honoured (or not). */
  function client(n: number, honours = true) {
    const asked: { line?: number; limit?: number }[] = [];
    const text = lines(n);
    const backend: ToolBackend = {
      where: { read: 'client', write: 'client', terminal: 'local' },
      readTextFile: async (_file, _signal, range) => {
        asked.push({ ...range });
        if (!honours || !range) return text;
        const all = text.split(/(?<=\n)/);
        const first = (range.line ?? 1) - 1;
        return all.slice(first, range.limit === undefined ? undefined : first + range.limit).join('');
      },
      writeTextFile: async () => undefined,
      runCommand: async () => {
        throw new Error('unused');
      },
    };
    return { backend, asked };
  }

  it('asks the client for just the lines the model wants (ACP line and limit)', async () => {
    const c = client(5000);
    const page = await run('read_file', { path: 'big.txt', offset: 1001, limit: 3 }, ctx({ backend: c.backend }));
    expect(c.asked).toEqual([{ line: 1001, limit: 3 }]);
    expect(page.forModel).toBe('1001\trow 1001\n1002\trow 1002\n1003\trow 1003\n[lines 1001–1003; more may follow from offset 1004]');
    expect(page.rawOutput).toMatchObject({ firstLine: 1001, lines: 3 });
    const end = await run('read_file', { path: 'big.txt', offset: 4999 }, ctx({ backend: c.backend }));
    expect(c.asked.at(-1)).toEqual({ line: 4999, limit: undefined });
    expect(end.forModel).toBe('4999\trow 4999\n5000\trow 5000\n[lines 4999–5000]');
    const past = await run('read_file', { path: 'big.txt', offset: 6000, limit: 10 }, ctx({ backend: c.backend }));
    expect(past).toMatchObject({ failed: true, forModel: 'offset 6000 is past the end of big.txt.' });
    await run('read_file', { path: 'big.txt' }, ctx({ backend: c.backend }));
    expect(c.asked.at(-1)).toEqual({});
  });

  it('cuts the lines itself when the client sends the whole file anyway', async () => {
    const c = client(50, false);
    const page = await run('read_file', { path: 'f.txt', offset: 10, limit: 2 }, ctx({ backend: c.backend }));
    expect(page.forModel).toBe('10\trow 10\n11\trow 11\n[lines 10–11 of 50]');
  });
});

describe('local backend by lines', () => {
  it('honours line and limit', async () => {
    await writeFile(path.join(ws, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    const backend = createLocalBackend({ cwd: ws, extra: [] });
    const signal = new AbortController().signal;
    expect(await backend.readTextFile(path.join(ws, 'a.txt'), signal, { line: 2, limit: 2 })).toBe('two\nthree\n');
    expect(await backend.readTextFile(path.join(ws, 'a.txt'), signal, { line: 3 })).toBe('three\nfour\n');
    expect(await backend.readTextFile(path.join(ws, 'a.txt'), signal, { limit: 1 })).toBe('one\n');
    expect(await backend.readTextFile(path.join(ws, 'a.txt'), signal, { line: 9 })).toBe('');
    expect(await backend.readTextFile(path.join(ws, 'a.txt'), signal)).toBe('one\ntwo\nthree\nfour\n');
  });
});
