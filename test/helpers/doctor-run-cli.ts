/**
 * Runs the built CLI (`dist/cli.js`) as a terminal command (doctor, models, setup) with
 * {@link cleanEnv} for a temp home (also the working directory, so no `.env` is read), so the
 * user's real config is never read or written.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
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

/**
 * `openai-acp <args>` for the terminal commands (doctor, models, setup) as src/cli.ts runs them,
 * in this process: parsed by the CLI's parser, then `runDoctor`, `runModels` or `runSetup` with
 * {@link cleanEnv} for `home`, `.env` looked up in `home` (the spawned CLI's working directory),
 * `input` as piped stdin, and the "Try it" agent command worked out for the built CLI. What the
 * command writes to stdout and its error writer is kept; `code` is what the CLI would exit with.
 * For the cases where a spawned run would show nothing more (keep a spawned run per command).
 */
export async function runCliInProcess(args: string[], options: { home: string; env?: Record<string, string>; input?: string }): Promise<CliRun> {
  const started = Date.now();
  // Loaded here, as the CLI loads them: the files that only spawn the CLI do not compile the sources.
  const { parseCliArgs } = await import('../../src/cli-args.js');
  const command = parseCliArgs(args);
  const env = cleanEnv(options.home, options.env);
  let stdout = '';
  let stderr = '';
  const write = (text: string) => void (stdout += text);
  const writeError = (text: string) => void (stderr += text);
  let code: number;
  if (command.kind === 'doctor') {
    const realpath = (path: string) => {
      try {
        return realpathSync(path);
      } catch {
        return undefined;
      }
    };
    const { agentCommandFor } = await import('../../src/commands/try-it.js');
    const { runDoctor } = await import('../../src/commands/doctor.js');
    const agentCommand = agentCommandFor(CLI, env['PATH'], realpath);
    code = await runDoctor({ flags: command.flags, env, cwd: options.home, timeoutMs: command.timeoutMs, agentCommand, write });
  } else if (command.kind === 'models') {
    const { runModels } = await import('../../src/commands/models.js');
    code = await runModels({ flags: command.flags, env, cwd: options.home, timeoutMs: command.timeoutMs, write, writeError });
  } else if (command.kind === 'setup') {
    const output = new Writable({
      write(chunk, _encoding, done) {
        write(String(chunk));
        done();
      },
    });
    const { runSetup } = await import('../../src/commands/setup.js');
    code = await runSetup({ env, input: Readable.from([options.input ?? '']), output, writeError });
  } else throw new Error(`not a terminal command: ${JSON.stringify(command)}`);
  return { code, stdout, stderr, ms: Date.now() - started };
}
