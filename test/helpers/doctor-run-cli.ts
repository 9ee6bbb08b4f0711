/**
 * Runs the built CLI (`dist/cli.js`) as a terminal command (doctor, models, setup) with a clean
 * environment: no inherited OPENAI_* or proxy settings, HOME and XDG_CONFIG_HOME in a fresh temp
 * directory (also the working directory, so no `.env` is read), so the user's real config is
 * never read or written.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { CLI } from './spawn-agent.js';

export interface CliRun {
  /** Exit code, or the signal name when killed. */
  code: number | string | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  ms: number;
}

const homes: string[] = [];
afterAll(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A fresh temp directory to use as HOME (`XDG_CONFIG_HOME` is `<home>/.config`), removed after the test file. */
export function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'openai-acp-cli-'));
  homes.push(home);
  return home;
}

/** The clean environment for `home`, plus `env`. */
export function cleanEnv(home: string, env: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('OPENAI_') && !/_PROXY$/i.test(key) && !/_API_KEY$/.test(key) && key !== 'XDG_CONFIG_HOME') base[key] = value;
  }
  // OPENAI_ACP_IN_CONTAINER=false: the local search must not look up host.docker.internal (no test leaves 127.0.0.1).
  return { ...base, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), OPENAI_ACP_IN_CONTAINER: 'false', ...env };
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
  return stdout.split('\n').find((line) => /^\s*[✓✗⚠–] /.test(line) && line.includes(` ${title}:`))?.trim();
}
