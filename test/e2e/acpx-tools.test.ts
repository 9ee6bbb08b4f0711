/**
 * The agent loop end to end with acpx (a real headless ACP client that advertises fs and
 * terminal): reads go through its `fs/read_text_file`, edits through `fs/write_text_file` (the
 * file on disk changes), commands through its `terminal/*`; `--deny-all` refuses the edit.
 * acpx `--format json` prints the JSON-RPC traffic both ways, which the tests read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fakeServerPool, type FakeOpenAI } from '../helpers/fake-openai.js';
import { acpxMessages, runAcpx, type AcpxRun } from '../helpers/acpx.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-acpx-tools-');

function acpx(
  server: FakeOpenAI,
  cwd: string,
  policy: '--approve-all' | '--deny-all',
  prompt: string,
  extra: string[] = [],
  format: 'json' | 'text' = 'json',
): Promise<AcpxRun> {
  const home = tempDir();
  return runAcpx(prompt, {
    cwd,
    format,
    args: [policy, ...extra],
    env: {
      HOME: home,
      XDG_STATE_HOME: join(home, 'state'),
      XDG_CONFIG_HOME: join(home, 'config'),
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_MAX_RETRIES: '0',
    },
  });
}

const messages = acpxMessages;

const updates = (all: any[]) => all.filter((m) => m.method === 'session/update').map((m) => m.params.update);

it('acpx --approve-all: read through fs/read_text_file, edit on disk, command in a client terminal', async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
  const server = await servers(
    script([
      { calls: [['read_file', { path: 'notes.txt' }]] },
      { calls: [['edit_file', { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' }]] },
      { calls: [['run_command', { command: 'echo out-$((6*7))' }]] },
      { text: 'All done.' },
    ]),
  );
  const run = await acpx(server, cwd, '--approve-all', 'read, edit, run');
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const all = messages(run.stdout);
  // The read went through the client (not our local backend) and its answer reached the model.
  const read = all.find((m) => m.method === 'fs/read_text_file');
  expect(read?.params.path).toBe(join(cwd, 'notes.txt'));
  const tool1 = server.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  expect(tool1.content).toContain('alpha');
  // The edit was written by acpx: the file on disk changed.
  expect(all.some((m) => m.method === 'fs/write_text_file' && m.params.path === join(cwd, 'notes.txt'))).toBe(true);
  expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
  // The command ran in acpx's terminal, shown embedded, and its output reached the model. acpx
  // spawns a terminal's command without a shell: the line goes through /bin/sh -c at once, so acpx
  // never refuses it first (no `[error] RUNTIME` and ENOENT stack on its output).
  const creates = all.filter((m) => m.method === 'terminal/create');
  expect(creates.map((m) => m.params.command)).toEqual(['/bin/sh']);
  expect(run.stdout + run.stderr).not.toMatch(/ENOENT|\[error\] RUNTIME/);
  const create = creates.at(-1);
  expect(create.params.args).toEqual(['-c', 'echo out-$((6*7))']);
  const terminalId = all.find((m) => m.id === create.id && m.result)?.result.terminalId;
  expect(terminalId).toBeTruthy();
  expect(
    updates(all).some((u) => u.sessionUpdate === 'tool_call_update' && u.content?.some((c: any) => c.type === 'terminal' && c.terminalId === terminalId)),
  ).toBe(true);
  expect(all.some((m) => m.method === 'terminal/release' && m.params.terminalId === terminalId)).toBe(true);
  const tool3 = server.requests[3]!.body.messages.filter((m: any) => m.role === 'tool').at(-1);
  expect(tool3.content).toContain('out-42');
  expect(all.find((m) => m.result?.stopReason)?.result.stopReason).toBe('end_turn');
});

it('acpx: creating a new file shows no error (the agent does not ask acpx to read a file that is not there)', async () => {
  const cwd = tempDir();
  const server = await servers(script([{ calls: [['write_file', { path: 'hello.txt', content: 'hi\n' }]] }, { text: 'Created.' }]));
  const run = await acpx(server, cwd, '--approve-all', 'create hello.txt', [], 'text');
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  expect(readFileSync(join(cwd, 'hello.txt'), 'utf8')).toBe('hi\n');
  expect(run.stdout).toContain('Created.');
  expect(`${run.stdout}\n${run.stderr}`).not.toMatch(/\[error\]|Resource not found/);
});

it('acpx --deny-all: the edit is refused, the file stays, the model is told', async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'a.txt'), 'one\n');
  const server = await servers(script([{ calls: [['edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' }]] }, { text: 'ok' }]));
  const run = await acpx(server, cwd, '--deny-all', 'edit it');
  const all = messages(run.stdout);
  expect(all.some((m) => m.method === 'session/request_permission')).toBe(true);
  expect(all.some((m) => m.method === 'fs/write_text_file')).toBe(false);
  expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
  expect(server.requests[1]!.body.messages.find((m: any) => m.role === 'tool').content).toMatch(/declined/);
  expect(updates(all).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')).toBe(true);
});
