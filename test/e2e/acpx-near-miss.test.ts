/**
 * Calls that are almost right finish in one step, end to end through acpx (a real ACP client
 * with fs and terminal): an edit whose old_string has spaces where the file has tabs, and a call
 * whose arguments are almost-JSON (single quotes, a trailing comma) under a leaked tool name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fakeServerPool, type FakeOpenAI } from '../helpers/fake-openai.js';
import { acpxMessages, runAcpx, type AcpxRun } from '../helpers/acpx.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-acpx-near-miss-');

function acpx(server: FakeOpenAI, cwd: string, prompt: string): Promise<AcpxRun> {
  const home = tempDir();
  return runAcpx(prompt, {
    cwd,
    format: 'json',
    args: ['--approve-all'],
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

const toolMessages = (server: FakeOpenAI, request: number) => server.requests[request]!.body.messages.filter((m: any) => m.role === 'tool');

it('acpx: an edit with spaces where the Go file has tabs applies in one step, written with tabs', async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'main.go'), 'package main\n\nfunc main() {\n\tif ok {\n\t\tprintln("hi")\n\t}\n}\n');
  const server = await servers(
    script([
      {
        calls: [
          [
            'edit_file',
            { path: 'main.go', old_string: '    if ok {\n        println("hi")\n    }', new_string: '    if ok {\n        println("hello")\n    }' },
          ],
        ],
      },
      { text: 'Edited.' },
    ]),
  );
  const run = await acpx(server, cwd, 'say hello');
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  // One tool step, then the answer: no failed call, no retry.
  expect(server.requests).toHaveLength(2);
  expect(readFileSync(join(cwd, 'main.go'), 'utf8')).toBe('package main\n\nfunc main() {\n\tif ok {\n\t\tprintln("hello")\n\t}\n}\n');
  expect(toolMessages(server, 1)[0].content).toMatch(
    /^Edited main\.go: 1 replacement\. Note: old_string matched with different indentation at lines 4–6; new_string was re-indented to the file's \(tabs\)\./,
  );
  const all = acpxMessages(run.stdout);
  expect(all.some((m) => m.method === 'fs/write_text_file' && m.params.path === join(cwd, 'main.go'))).toBe(true);
  expect(all.find((m) => m.result?.stopReason)?.result.stopReason).toBe('end_turn');
});

it('acpx: a call with single quotes and a trailing comma under a leaked tool name is repaired and runs in one step', async () => {
  const cwd = tempDir();
  const server = await servers(
    script([{ calls: [['write_file<|channel|>commentary', "{'path': 'hello.py', 'content': 'print(1)\\n',}"]] }, { text: 'Created.' }]),
  );
  const run = await acpx(server, cwd, 'create hello.py');
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  expect(server.requests).toHaveLength(2);
  expect(readFileSync(join(cwd, 'hello.py'), 'utf8')).toBe('print(1)\n');
  expect(toolMessages(server, 1)[0].content).toMatch(
    /^Wrote 1 line to hello\.py \(new file\)\.\n\n\(Note: the tool is named "write_file"; the arguments were not valid JSON \(.+\) and were repaired\.\)$/,
  );
});
