/**
 * Spawns the built CLI (`dist/cli.js`) as an editor would and talks raw JSON-RPC to it over
 * stdio: requests with ids, notifications, and every line the agent writes, checked to be JSON-RPC.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cleanEnv, tempHome } from './temp-home.js';
import { patientDeadline } from './patience.js';

/** Longest wait for an answer before a request fails with the agent's stderr, in ms. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Path of the built CLI. Tests that spawn it need `npm run build` (the `pretest` script) first. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface AgentProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every JSON message the agent wrote to stdout, in order. */
  messages: any[];
  /** stdout lines that were not JSON-RPC 2.0 (must stay empty). */
  badLines: string[];
  stderr(): string;
  /** Send a request; resolves with the whole response message. */
  request(method: string, params?: unknown, extra?: Record<string, unknown>): Promise<any>;
  notify(method: string, params?: unknown, extra?: Record<string, unknown>): void;
  /** Write a raw line. */
  writeLine(line: string): void;
  /** `session/update` params received for a session. */
  updates(sessionId: string): any[];
  /** Concatenated text of agent_message_chunk updates for a session. */
  text(sessionId: string): string;
  /** Concatenated text of agent_thought_chunk updates for a session. */
  thoughts(sessionId: string): string;
  /** Resolves with the exit code (or signal) once the process exits. */
  exited: Promise<number | string | null>;
  /** initialize + session/new; returns the session id. */
  start(cwd?: string): Promise<string>;
  kill(): void;
}

/**
 * A scratch home for spawned agents, so that no test reads the user's config file or writes
 * sessions into the user's state directory: HOME and the `XDG_*` directories point here
 * (test/helpers/clean-env.mjs). One per test file (each file imports this module afresh),
 * removed after the file's tests.
 */
export const SCRATCH_HOME = tempHome();

/**
 * Spawn the agent with `env` added to {@link cleanEnv} for {@link SCRATCH_HOME}: no inherited
 * OPENAI_*, key or proxy settings, config and state under the scratch home (unless `env` says
 * otherwise).
 */
export function spawnAgent(env: Record<string, string>, args: string[] = []): AgentProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: cleanEnv(SCRATCH_HOME, { OPENAI_ACP_LOG: 'debug', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const messages: any[] = [];
  const badLines: string[] = [];
  const waiting = new Map<unknown, (message: any) => void>();
  let stderr = '';
  let buffer = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    buffer += data;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.trim()) continue;
      let message: any;
      try {
        message = JSON.parse(line);
      } catch {
        badLines.push(line);
        continue;
      }
      if (message?.jsonrpc !== '2.0') badLines.push(line);
      messages.push(message);
      if (message.method === undefined && waiting.has(message.id)) {
        waiting.get(message.id)!(message);
        waiting.delete(message.id);
      }
    }
  });
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  let nextId = 1;
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const agent: AgentProcess = {
    child,
    messages,
    badLines,
    stderr: () => stderr,
    request(method, params, extra = {}) {
      const id = nextId++;
      const answered = new Promise<any>((resolve, reject) => {
        // Fail with the agent's own account instead of a bare test timeout.
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`no answer to ${method} (id ${id}) within ${REQUEST_TIMEOUT_MS} ms; stderr:\n${stderr.slice(-3000)}`));
        }, REQUEST_TIMEOUT_MS);
        waiting.set(id, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
      });
      // A request nobody awaits (the test ended, or killed the agent first) must not turn into an
      // unhandled rejection 15 s later in the next file: workers outlive files (vitest.config.ts).
      answered.catch(() => undefined);
      send({ jsonrpc: '2.0', id, method, params, ...extra });
      return answered;
    },
    notify(method, params, extra = {}) {
      send({ jsonrpc: '2.0', method, params, ...extra });
    },
    writeLine(line) {
      child.stdin.write(`${line}\n`);
    },
    updates: (sessionId) => messages.filter((m) => m.method === 'session/update' && m.params?.sessionId === sessionId).map((m) => m.params.update),
    text: (sessionId) =>
      agent
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => u.content.text)
        .join(''),
    thoughts: (sessionId) =>
      agent
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'agent_thought_chunk')
        .map((u) => u.content.text)
        .join(''),
    exited,
    async start(cwd = process.cwd()) {
      const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      if (init.result?.protocolVersion !== 1) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
      const created = await agent.request('session/new', { cwd, mcpServers: [] });
      if (!created.result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(created)}`);
      return created.result.sessionId as string;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
  return agent;
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `check` every 10 ms until it returns true, or throw after `ms` (at least `PATIENCE_MS`: a hang, not a slow machine). */
export async function waitFor(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const until = patientDeadline(ms);
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
