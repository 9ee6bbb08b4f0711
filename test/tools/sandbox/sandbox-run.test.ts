/**
 * Commands run in the bubblewrap sandbox for real, where this machine lets bwrap create its
 * namespaces (the describe title says why it is skipped where it cannot), and the modes' choices
 * with a probe that says no.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runLocalCommand } from '../../../src/tools/backends/local-command.js';
import { probeSandbox } from '../../../src/tools/sandbox/sandbox-probe.js';
import { configureToolProcesses, resetToolProcesses, sandboxReport, toolSpawn } from '../../../src/tools/sandbox/tool-processes.js';
import { ToolError } from '../../../src/tools/tool.js';

const found = probeSandbox();
const settings = (sandbox: 'on' | 'off' | 'auto', sandboxNetwork = false) => ({ sandbox, sandboxNetwork, toolEnvKeep: [], toolEnvDrop: [] });

let base: string;
let workspace: string;
let outside: string;
let state: string;
let secretFile: string;
beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'oa-sandbox-'));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  state = path.join(base, 'state');
  for (const dir of [workspace, outside, state]) mkdirSync(dir);
  writeFileSync(path.join(state, 'session.jsonl'), 'saved conversation\n');
  secretFile = path.join(base, 'api-key');
  writeFileSync(secretFile, 'sk-from-a-file-0123456789\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
afterEach(() => resetToolProcesses());

const run = (command: string, timeoutMs = 20_000) =>
  runLocalCommand(command, { cwd: workspace, timeoutMs, outputByteLimit: 65_536, signal: new AbortController().signal }, [workspace]);

describe.skipIf(!found.available)(`in bubblewrap${found.available ? '' : ` (skipped here: ${found.available === false ? found.reason : ''})`}`, () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('writes the workspace, not outside it; sees no agent key, no state and no secret file', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-agent-key-in-env-42');
    vi.stubEnv('SOME_SERVICE_TOKEN', 't');
    configureToolProcesses(settings('on'), { serve: true, secretValues: ['sk-agent-key-in-env-42'], hidden: [state, secretFile] });
    expect(sandboxReport()).toMatchObject({ ok: true });
    const result = await run(
      `echo inside > made.txt; echo escaped > ${outside}/x.txt; echo x > ${state}/new.txt; touch -c /usr/bin; ` +
        `echo "state:[$(ls ${state})]"; echo "secret:[$(cat ${secretFile} 2>/dev/null)]"; env`,
    );
    expect(readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('inside\n');
    // Outside the roots is read-only (/usr) or a private tmpfs (/tmp): nothing reaches the host.
    expect(existsSync(path.join(outside, 'x.txt'))).toBe(false);
    expect(existsSync(path.join(state, 'new.txt'))).toBe(false);
    expect(result.output).toMatch(/'\/usr\/bin': Read-only file system/);
    expect(result.output).not.toContain('session.jsonl');
    expect(result.output).toContain('secret:[]');
    expect(result.output).not.toContain('sk-from-a-file');
    expect(result.output).not.toContain('sk-agent-key-in-env-42');
    expect(result.output).not.toContain('SOME_SERVICE_TOKEN');
    expect(result.output).toMatch(/^PATH=/m);
  });

  it('reaches no network unless allowed', async () => {
    const probe = `"${process.execPath}" -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',(e)=>console.log('REFUSED',e.code))"`;
    configureToolProcesses(settings('on'), { serve: true, secretValues: [], hidden: [] });
    expect((await run(probe)).output).toContain('REFUSED');
    configureToolProcesses(settings('on', true), { serve: true, secretValues: [], hidden: [] });
    expect((await run(probe)).output).toContain('CONNECTED');
  });

  it('a command past its time limit is ended, with what it left running', async () => {
    configureToolProcesses(settings('on'), { serve: true, secretValues: [], hidden: [] });
    const result = await run('sleep 300 & sleep 300', 300);
    expect(result.timedOut).toBe(true);
  });

  it('sees no other process of the machine (its own PID namespace)', async () => {
    configureToolProcesses(settings('on'), { serve: true, secretValues: [], hidden: [] });
    const result = await run(`test -e /proc/${process.pid}/environ && echo VISIBLE || echo HIDDEN`);
    expect(result.output).toContain('HIDDEN');
  });
});

describe('the sandbox modes where it cannot run', () => {
  const no = () => ({ available: false as const, reason: 'bwrap is not installed', remedy: 'install bubblewrap' });

  it('on: refuses to start the command, with the reason and what the operator can do', async () => {
    resetToolProcesses(no);
    configureToolProcesses(settings('on'), { serve: true, secretValues: [], hidden: [] });
    const marker = path.join(workspace, 'ran-unconfined');
    await expect(run(`touch ${marker}`)).rejects.toThrow(ToolError);
    await expect(run(`touch ${marker}`)).rejects.toThrow(/OPENAI_ACP_SANDBOX=on.*bwrap is not installed.*install bubblewrap/);
    expect(existsSync(marker)).toBe(false);
    expect(sandboxReport()).toMatchObject({ ok: false, text: expect.stringContaining('are refused') });
  });

  it('auto (serve without a setting): runs unconfined and says so', async () => {
    resetToolProcesses(no);
    configureToolProcesses({ ...settings('off'), sandbox: undefined }, { serve: true, secretValues: [], hidden: [] });
    expect(sandboxReport()).toMatchObject({ ok: false, text: expect.stringContaining('run unconfined') });
    expect((await run('echo ran')).output).toBe('ran\n');
  });

  it('stdio without a setting: off, nothing probed, the environment policy still applies', () => {
    let probed = false;
    resetToolProcesses(() => {
      probed = true;
      return no();
    });
    configureToolProcesses({ ...settings('off'), sandbox: undefined }, { serve: false, secretValues: [], hidden: [] });
    const spawn = toolSpawn('/bin/sh', ['-c', 'true'], { cwd: workspace, writable: [workspace] }, { PATH: '/bin', OPENAI_API_KEY: 'k' });
    expect(spawn).toEqual({ file: '/bin/sh', args: ['-c', 'true'], env: { PATH: '/bin' }, sandboxed: false });
    expect(sandboxReport()).toBeUndefined();
    expect(probed).toBe(false);
  });
});
