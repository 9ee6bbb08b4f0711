/**
 * Runs acpx (a dev dependency: a real headless ACP client) against the built CLI with
 * `--format json`, and reads the JSON-RPC traffic it prints.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CLI } from './spawn-agent.js';
import { cleanEnv, tempHome } from './temp-home.js';

const ACPX = fileURLToPath(new URL('../../node_modules/acpx/dist/cli.js', import.meta.url));

/** What an acpx run gave: its exit code and output. */
export interface AcpxRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `acpx --agent <our CLI> --format json <args> --cwd <cwd> exec <prompt>` with {@link cleanEnv}
 * plus `env` (HOME is `env.HOME`, else a temp home removed after the test file: acpx and the agent
 * both keep state under it); never rejects (a failing run has a non-zero `code`).
 * @param options.args - acpx flags before `exec` (`--approve-all`, `--model X`, `--mcp-config F`)
 * @param options.timeoutMs - killed after this long. @defaultValue 30000
 * @param options.format - acpx's output: the JSON-RPC traffic, or what a user sees. @defaultValue 'json'
 */
export function runAcpx(
  prompt: string,
  options: { cwd: string; env: Record<string, string>; args: string[]; timeoutMs?: number; format?: 'json' | 'text' },
): Promise<AcpxRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        ACPX,
        '--agent',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`,
        '--format',
        options.format ?? 'json',
        ...options.args,
        '--cwd',
        options.cwd,
        'exec',
        prompt,
      ],
      { env: cleanEnv(options.env['HOME'] ?? tempHome('openai-acp-acpx-'), options.env), timeout: options.timeoutMs ?? 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The JSON-RPC messages acpx printed (`--format json`), in order. */
export function acpxMessages(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line));
}
