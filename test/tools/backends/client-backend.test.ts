import { describe, expect, it } from 'vitest';
import { createClientBackend, raceAbort, toolCapabilities, type ClientToolCapabilities } from '../../../src/tools/backends/client-backend.js';
import { ToolError } from '../../../src/tools/tool.js';
import type { CommandOptions, ToolBackend } from '../../../src/tools/backends/tool-backend.js';
import { fakeClient, type FakeClientOptions } from '../../helpers/fake-acp-client.js';

/** A local backend that records what it was asked. */
function fakeLocal() {
  const calls: string[] = [];
  const local: ToolBackend = {
    where: { read: 'local', write: 'local', terminal: 'local' },
    async readTextFile(path) {
      calls.push(`read ${path}`);
      return 'local text';
    },
    async writeTextFile(path, content) {
      calls.push(`write ${path} ${content}`);
    },
    async runCommand(command) {
      calls.push(`run ${command}`);
      return { output: 'local out', truncated: false, exitCode: 0, signal: null, timedOut: false, release: async () => undefined };
    },
  };
  return { local, calls };
}

const all: ClientToolCapabilities = { readTextFile: true, writeTextFile: true, terminal: true };
const none: ClientToolCapabilities = { readTextFile: false, writeTextFile: false, terminal: false };

function setup(capabilities: ClientToolCapabilities, options: FakeClientOptions = {}) {
  const fake = fakeClient({
    handlers: {
      'fs/read_text_file': () => ({ content: 'client text' }),
      'fs/write_text_file': () => ({}),
      ...options.handlers,
    },
    ...(options.terminalExit ? { terminalExit: options.terminalExit } : {}),
    ...(options.terminalError ? { terminalError: options.terminalError } : {}),
    ...(options.terminalDelayMs ? { terminalDelayMs: options.terminalDelayMs } : {}),
    ...(options.spawnsWithoutShell ? { spawnsWithoutShell: true } : {}),
  });
  const { local, calls } = fakeLocal();
  const backend = createClientBackend({ client: fake.client, sessionId: 's1', capabilities, local });
  return { ...fake, backend, calls };
}

const signal = () => new AbortController().signal;
const run = (over: Partial<CommandOptions> = {}): CommandOptions => ({ cwd: '/p', timeoutMs: 10_000, outputByteLimit: 1000, signal: signal(), ...over });

describe('toolCapabilities', () => {
  it('reads true only for explicit true', () => {
    expect(toolCapabilities(undefined)).toEqual(none);
    expect(toolCapabilities({ fs: { readTextFile: true, writeTextFile: false }, terminal: true })).toEqual({
      readTextFile: true,
      writeTextFile: false,
      terminal: true,
    });
  });
});

describe('createClientBackend routing', () => {
  it('with every capability on, goes only to the client', async () => {
    const t = setup(all);
    expect(t.backend.where).toEqual({ read: 'client', write: 'client', terminal: 'client' });
    expect(await t.backend.readTextFile('/p/a.txt', signal())).toBe('client text');
    await t.backend.writeTextFile('/p/a.txt', 'new', signal());
    expect(t.requests).toEqual([
      { method: 'fs/read_text_file', params: { sessionId: 's1', path: '/p/a.txt' } },
      { method: 'fs/write_text_file', params: { sessionId: 's1', path: '/p/a.txt', content: 'new' } },
    ]);
    expect(t.calls).toEqual([]);
  });
  it('passes the lines asked for as line and limit of fs/read_text_file', async () => {
    const t = setup(all);
    await t.backend.readTextFile('/p/a.txt', signal(), { line: 40, limit: 20 });
    await t.backend.readTextFile('/p/a.txt', signal(), { line: 7 });
    expect(t.requests).toEqual([
      { method: 'fs/read_text_file', params: { sessionId: 's1', path: '/p/a.txt', line: 40, limit: 20 } },
      { method: 'fs/read_text_file', params: { sessionId: 's1', path: '/p/a.txt', line: 7 } },
    ]);
  });
  it('with every capability off, goes only to the local backend', async () => {
    const t = setup(none);
    expect(t.backend.where).toEqual({ read: 'local', write: 'local', terminal: 'local' });
    expect(await t.backend.readTextFile('/p/a.txt', signal())).toBe('local text');
    await t.backend.writeTextFile('/p/a.txt', 'new', signal());
    expect((await t.backend.runCommand('ls', run())).output).toBe('local out');
    expect(t.calls).toEqual(['read /p/a.txt', 'write /p/a.txt new', 'run ls']);
    expect(t.log).toEqual([]);
  });
  it('mixes per capability: client reads, local writes — never both', async () => {
    const t = setup({ readTextFile: true, writeTextFile: false, terminal: false });
    await t.backend.readTextFile('/p/a', signal());
    await t.backend.writeTextFile('/p/a', 'x', signal());
    expect(t.requests.map((r) => r.method)).toEqual(['fs/read_text_file']);
    expect(t.calls).toEqual(['write /p/a x']);
  });
  it('an answer without content reads as empty text', async () => {
    const t = setup(all, { handlers: { 'fs/read_text_file': () => ({}) } });
    expect(await t.backend.readTextFile('/p/a', signal())).toBe('');
  });
});

describe('client errors', () => {
  it.each(['File not found: /p/a', 'ENOENT: no such file or directory', 'path does not exist'])('"%s" becomes a not_found ToolError', async (message) => {
    const t = setup(all, { handlers: { 'fs/read_text_file': () => Promise.reject(new Error(message)) } });
    const error = await t.backend.readTextFile('/p/a', signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('not_found');
    expect((error as ToolError).message).toContain(message);
  });
  it('an "Internal error" whose data says ENOENT (as acpx answers) is not_found, worded by its message', async () => {
    const refusal = Object.assign(new Error('Internal error'), { code: -32603, data: { details: "ENOENT: no such file or directory, open '/p/a'" } });
    const t = setup(all, { handlers: { 'fs/read_text_file': () => Promise.reject(refusal) } });
    const error = await t.backend.readTextFile('/p/a', signal()).catch((e: unknown) => e);
    expect((error as ToolError).code).toBe('not_found');
    expect((error as ToolError).message).toBe('The editor could not read /p/a: Internal error');
  });
  it('a JSON-RPC error object (not an Error) keeps its message; other texts are code other', async () => {
    const t = setup(all, { handlers: { 'fs/write_text_file': () => Promise.reject({ code: -32603, message: 'Permission denied' }) } });
    const error = await t.backend.writeTextFile('/p/a', 'x', signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('other');
    expect((error as ToolError).message).toContain('Permission denied');
    expect(t.calls).toEqual([]);
  });
  it('a client terminal that cannot be created is a ToolError', async () => {
    const t = setup(all, { terminalError: new Error('terminals disabled') });
    const error = await t.backend.runCommand('ls', run()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(t.calls).toEqual([]);
  });
});

describe('raceAbort', () => {
  it('settles as the promise does', async () => {
    expect(await raceAbort(Promise.resolve(1), signal())).toBe(1);
    await expect(raceAbort(Promise.reject(new Error('x')), signal())).rejects.toThrow('x');
  });
  it('rejects at once with the reason when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(raceAbort(new Promise(() => undefined), controller.signal)).rejects.toThrow('gone');
  });
  it('rejects promptly on abort while the promise hangs', async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise(() => undefined), controller.signal);
    setTimeout(() => controller.abort(new Error('cancel')), 5);
    await expect(raced).rejects.toThrow('cancel');
  });
  it('a client read that never answers rejects with the abort reason, not a ToolError', async () => {
    const controller = new AbortController();
    const t = setup(all, { handlers: { 'fs/read_text_file': () => new Promise(() => undefined) } });
    const read = t.backend.readTextFile('/p/a', controller.signal).catch((e: unknown) => e);
    controller.abort(new Error('cancelled'));
    const error = await read;
    expect(error).not.toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe('cancelled');
  });
});

describe('client terminals', () => {
  it('a client that spawns without a shell gets the line again through the shell', async () => {
    const t = setup(all, { terminalExit: { exitCode: 0, output: 'ok\n' }, spawnsWithoutShell: true });
    const result = await t.backend.runCommand('npm test -- --x', { cwd: '/w', timeoutMs: 5_000, outputByteLimit: 1024, signal: new AbortController().signal });
    expect(result).toMatchObject({ exitCode: 0, output: 'ok\n' });
    expect(t.creates.map((c) => c.command)).toEqual(['npm test -- --x', process.platform === 'win32' ? 'cmd.exe' : '/bin/sh']);
    expect(t.terminals[0]).toMatchObject(
      process.platform === 'win32'
        ? { command: 'cmd.exe', args: ['/d', '/s', '/c', 'npm test -- --x'] }
        : { command: '/bin/sh', args: ['-c', 'npm test -- --x'] },
    );
  });

  it('acpx (known to spawn without a shell, by clientInfo.name) gets the line through the shell at once: no refusal shown first', async () => {
    expect(toolCapabilities({ terminal: true }, 'acpx')).toMatchObject({ terminal: true, shellFirst: true });
    expect(toolCapabilities({ terminal: true }, 'Zed').shellFirst).toBeUndefined();
    const t = setup(toolCapabilities({ terminal: true }, 'acpx'), { terminalExit: { exitCode: 0, output: 'ok\n' }, spawnsWithoutShell: true });
    const result = await t.backend.runCommand('npm test -- --x', { cwd: '/w', timeoutMs: 5_000, outputByteLimit: 1024, signal: new AbortController().signal });
    expect(result).toMatchObject({ exitCode: 0, output: 'ok\n' });
    expect(t.creates.map((c) => c.command)).toEqual([process.platform === 'win32' ? 'cmd.exe' : '/bin/sh']);
  });

  it('any other refusal to create a terminal is not asked again', async () => {
    const t = setup(all, { terminalError: new Error('terminals disabled') });
    await expect(t.backend.runCommand('ls', { cwd: '/w', timeoutMs: 5_000, outputByteLimit: 1024, signal: new AbortController().signal })).rejects.toThrow(
      /terminals disabled/,
    );
    expect(t.creates).toEqual([{ command: 'ls', args: undefined }]);
  });

  it('runs the whole line in a client terminal, calls onStarted with its id, returns status and output', async () => {
    const t = setup(all, { terminalExit: { exitCode: 3, output: 'boom\n' } });
    const started: (string | undefined)[] = [];
    const result = await t.backend.runCommand('npm test -- --x', run({ onStarted: (id) => void started.push(id) }));
    expect(started).toEqual(['term-1']);
    expect(t.terminals[0]?.command).toBe('npm test -- --x');
    expect(result).toMatchObject({ output: 'boom\n', exitCode: 3, signal: null, timedOut: false, truncated: false });
    // not released until the caller says so, and release is idempotent
    expect(t.terminals[0]?.released).toBe(0);
    await result.release();
    await result.release();
    expect(t.terminals[0]?.released).toBe(1);
    expect(t.calls).toEqual([]);
  });
  it('kills the command at its time limit and reports timedOut', async () => {
    const t = setup(all);
    const result = await t.backend.runCommand('sleep 100', run({ timeoutMs: 30 }));
    expect(t.terminals[0]?.killed).toBe(1);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGKILL');
    await result.release();
    expect(t.terminals[0]?.released).toBe(1);
  });
  it('on abort kills, releases and rejects with the reason', async () => {
    const t = setup(all);
    const controller = new AbortController();
    const running = t.backend
      .runCommand('sleep 100', run({ signal: controller.signal, onStarted: () => void setTimeout(() => controller.abort(new Error('stop')), 5) }))
      .catch((e: unknown) => e);
    const error = await running;
    expect((error as Error).message).toBe('stop');
    expect(t.terminals[0]?.killed).toBe(1);
    expect(t.terminals[0]?.released).toBe(1);
    expect(t.log.indexOf('terminal:term-1:kill')).toBeLessThan(t.log.indexOf('terminal:term-1:release'));
  });
  it('abort while the client is still creating the terminal: rejects at once, and the late terminal is killed and released', async () => {
    const t = setup(all, { terminalDelayMs: 40 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 5);
    const error = await t.backend.runCommand('sleep 100', run({ signal: controller.signal })).catch((e: unknown) => e);
    expect((error as Error).message).toBe('stop');
    expect(t.terminals).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(t.terminals[0]).toMatchObject({ killed: 1, released: 1 });
  });

  it('an onStarted that throws releases the terminal', async () => {
    const t = setup(all, { terminalExit: { exitCode: 0 } });
    const error = await t.backend.runCommand('ls', run({ onStarted: () => Promise.reject(new Error('send failed')) })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(t.terminals[0]?.released).toBe(1);
  });
});
