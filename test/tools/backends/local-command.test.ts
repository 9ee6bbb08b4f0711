import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CANCEL_KILL_GRACE_MS, KILL_GRACE_MS, TailBuffer, runLocalCommand, shellInvocation } from '../../../src/tools/backends/local-command.js';
import { patientDeadline } from '../../helpers/patience.js';

/** Alive and not a zombie (a zombie has exited; only its parent has not read its status yet). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const end = patientDeadline(ms);
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const options = (cwd: string, extra: Partial<Parameters<typeof runLocalCommand>[1]> = {}) => ({
  cwd,
  timeoutMs: 10_000,
  outputByteLimit: 1024 * 1024,
  signal: new AbortController().signal,
  ...extra,
});

describe.skipIf(process.platform === 'win32')('runLocalCommand', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'oa-cmd-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('gives the exit code and merged stdout and stderr, in the cwd', async () => {
    const ok = await runLocalCommand('echo out; echo err >&2; pwd', options(dir));
    expect(ok).toMatchObject({ exitCode: 0, signal: null, timedOut: false, truncated: false });
    expect(ok.output).toContain('out\n');
    expect(ok.output).toContain('err\n');
    expect(ok.output).toContain(path.basename(dir));
    const bad = await runLocalCommand('exit 3', options(dir));
    expect(bad).toMatchObject({ exitCode: 3, output: '' });
  });

  it('closes stdin so a reader sees end of file instead of hanging', async () => {
    const result = await runLocalCommand('cat; echo done', options(dir, { timeoutMs: 5_000 }));
    expect(result).toMatchObject({ exitCode: 0, output: 'done\n', timedOut: false });
  });

  it('keeps the tail of the output within the byte limit', async () => {
    const result = await runLocalCommand('for i in $(seq 1 2000); do echo "line $i"; done', options(dir, { outputByteLimit: 100 }));
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(100);
    expect(result.output.endsWith('line 2000\n')).toBe(true);
  });

  it('kills a command at its timeout, with timedOut set', async () => {
    const result = await runLocalCommand('sleep 30', options(dir, { timeoutMs: 300 }));
    expect(result.timedOut).toBe(true);
    expect(result.exitCode === null || result.exitCode !== 0).toBe(true);
  });

  it('on abort kills the whole process group and rejects with the reason', async () => {
    const pids = path.join(dir, 'pids');
    const controller = new AbortController();
    const running = runLocalCommand(`sleep 30 & echo $! > ${pids}; sleep 31 & echo $! >> ${pids}; wait`, options(dir, { signal: controller.signal }));
    await waitFor(async () => (await readFile(pids, 'utf8').catch(() => '')).trim().split('\n').length === 2);
    const children = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    expect(children.every(alive)).toBe(true);
    const reason = new Error('cancelled by test');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    await waitFor(() => !children.some(alive), 3_000);
  });

  it('on abort, a group that ignores SIGTERM gets SIGKILL after CANCEL_KILL_GRACE_MS, not KILL_GRACE_MS', async () => {
    const pidFile = path.join(dir, 'stubborn');
    const controller = new AbortController();
    const running = runLocalCommand(`trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done`, options(dir, { signal: controller.signal }));
    await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '');
    const pid = Number(await readFile(pidFile, 'utf8'));
    // The SIGKILL is scheduled with the cancel's grace, not the timeout's (read off the timers
    // set, so a loaded machine cannot blur 500 ms against 2,000 ms).
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      controller.abort(new Error('stop'));
      await expect(running).rejects.toThrow('stop');
      expect(alive(pid)).toBe(false);
      const delays = timers.mock.calls.map((call) => call[1]);
      expect(delays).toContain(CANCEL_KILL_GRACE_MS);
      expect(delays).not.toContain(KILL_GRACE_MS);
    } finally {
      timers.mockRestore();
    }
  });

  it('a group still being ended when the process exits gets SIGKILL at exit', async () => {
    const pidFile = path.join(dir, 'orphan');
    const module = new URL('../../../src/tools/backends/local-command.ts', import.meta.url).href;
    // A process that starts a stubborn command, aborts it and exits at once (before the SIGKILL timer).
    const program = [
      `import { runLocalCommand } from ${JSON.stringify(module)};`,
      'import { existsSync, readFileSync } from "node:fs";',
      'const controller = new AbortController();',
      `runLocalCommand("trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done", { cwd: ${JSON.stringify(dir)}, timeoutMs: 60000, outputByteLimit: 1000, signal: controller.signal }).catch(() => {});`,
      `const wait = () => existsSync(${JSON.stringify(pidFile)}) && readFileSync(${JSON.stringify(pidFile)}, 'utf8').trim() ? (controller.abort(), process.exit(0)) : setTimeout(wait, 10);`,
      'wait();',
    ].join('\n');
    // tsx's ESM loader in this very process (its CLI would start a second Node to run it).
    const tsx = new URL('../../../node_modules/tsx/dist/esm/index.mjs', import.meta.url).href;
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    const pid = Number(await readFile(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 1_000);
  });

  it('ends what the shell left running in the background', async () => {
    const pidFile = path.join(dir, 'bg');
    const result = await runLocalCommand(`sleep 30 >/dev/null 2>&1 & echo $! > ${pidFile}; echo started`, options(dir));
    expect(result).toMatchObject({ exitCode: 0, output: 'started\n' });
    const pid = Number(await readFile(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), 4_000);
  });

  it('rejects at once when already aborted, starting nothing', async () => {
    const controller = new AbortController();
    controller.abort(new Error('early'));
    const marker = path.join(dir, 'never');
    await expect(runLocalCommand(`touch ${marker}`, options(dir, { signal: controller.signal }))).rejects.toThrow('early');
    await expect(readFile(marker)).rejects.toThrow();
  });

  it('calls onStarted without a terminal id', async () => {
    const seen: (string | undefined)[] = [];
    await runLocalCommand('true', options(dir, { onStarted: (id) => void seen.push(id) }));
    expect(seen).toEqual([undefined]);
  });
});

describe('shellInvocation and TailBuffer', () => {
  it('uses $SHELL -c, /bin/sh without it, cmd.exe on Windows', () => {
    expect(shellInvocation('ls', 'linux', { SHELL: '/bin/zsh' })).toEqual({ file: '/bin/zsh', args: ['-c', 'ls'] });
    expect(shellInvocation('ls', 'linux', {})).toEqual({ file: '/bin/sh', args: ['-c', 'ls'] });
    expect(shellInvocation('dir', 'win32', {})).toEqual({ file: 'cmd.exe', args: ['/d', '/s', '/c', '"dir"'] });
  });
  it('keeps the last bytes and drops a split character', () => {
    const buffer = new TailBuffer(4);
    buffer.push(Buffer.from('abc'));
    buffer.push(Buffer.from('dé€'));
    expect(buffer.truncated).toBe(true);
    expect(buffer.text()).toBe('€'); // the kept 4 bytes start inside 'é'
    const small = new TailBuffer(100);
    small.push(Buffer.from('héllo'));
    expect([small.text(), small.truncated]).toEqual(['héllo', false]);
  });
});
