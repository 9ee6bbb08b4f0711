/**
 * Runs the built CLI (`dist/cli.js`) as a terminal command (doctor, models, setup) with
 * {@link cleanEnv} for a temp home (also the working directory, so no `.env` is read), so the
 * user's real config is never read or written.
 */
import { spawn } from 'node:child_process';
import { CLI } from './spawn-agent.js';
import { cleanEnv } from './temp-home.js';

export { cleanEnv, tempHome } from './temp-home.js';

export interface CliRun {
  /** Exit code, or the signal name when killed. */
  code: number | string | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  ms: number;
}

/**
 * Runs `node dist/cli.js ...args` in `home` with {@link cleanEnv}; writes `input` to stdin and
 * closes it (stdin is a pipe). Killed after `killAfterMs`.
 */
export function runCli(args: string[], options: { home: string; env?: Record<string, string>; input?: string; killAfterMs?: number }): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.home, env: cleanEnv(options.home, options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 20_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

/** The report line of a doctor check (`✓ endpoint answers: …`), or `undefined`. */
export function checkLine(stdout: string, title: string): string | undefined {
  return stdout
    .split('\n')
    .find((line) => /^\s*[✓✗⚠–] /.test(line) && line.includes(` ${title}:`))
    ?.trim();
}
