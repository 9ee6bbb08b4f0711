/**
 * Runs `openai-acp agentconnect` from the built CLI (port 0, scratch home and state directory)
 * and talks to it as an AgentConnect app would: a `ws` client sending JSON-RPC requests and
 * collecting `acp.session.event` pushes.
 *
 * The shapes relied on, from AgentConnect v0.2.6 (github.com/rayzhudev/agent-connect):
 * - `docs/PROTOCOL.md` "Session Events": `{method: "acp.session.event", params: {sessionId, type, data}}`;
 *   "Error Model": `error.code` is a string such as `AC_ERR_UNSUPPORTED`.
 * - `packages/sdk/src/index.ts`: `send` → `acp.sessions.send {sessionId, message: {role: "user", content}}`;
 *   `create` answers `{sessionId}`; `models.list` `{models: ModelInfo[]}`, `models.info` `{model}`;
 *   event data read as `data.text` (delta, final), `data.cancelled` (final), `data.usage`,
 *   `data.contextUsage`, `data.callId`/`name`/`phase`/`input`/`output` (tool_call).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import WebSocket from 'ws';
import { CLI } from './spawn-agent.js';

/** One pushed session event. */
interface PushedEvent {
  sessionId: string;
  type: string;
  data: Record<string, any>;
}

/** A running front door. */
export interface FrontDoorProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A scratch home for front doors: config and state never touch the user's. */
function scratchHome(): string {
  return mkdtempSync(join(tmpdir(), 'openai-acp-ac-home-'));
}

/** Starts `openai-acp agentconnect --port 0 …args` with `env` over a clean environment; resolves once it listens. */
async function startFrontDoor(home: string, env: Record<string, string>, args: string[] = []): Promise<FrontDoorProcess> {
  const base: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    OPENAI_ACP_IN_CONTAINER: 'false',
    PATH: process.env['PATH'] ?? '',
  };
  const child = spawn(process.execPath, [CLI, 'agentconnect', '--port', '0', ...args], {
    env: { ...base, OPENAI_ACP_LOG: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (data: string) => {
      stderr += data;
      const found = /AgentConnect front door on (ws:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`front door exited (${code}):\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** An AgentConnect app's connection. */
export interface AppClient {
  ws: WebSocket;
  events: PushedEvent[];
  /** Sends a request; resolves with the whole answer (`result` or `error`). */
  request(method: string, params?: Record<string, unknown>): Promise<{ result?: any; error?: { code: string; message: string } }>;
  /** Every raw message received, in order (answers and pushes). */
  received: any[];
  /** Resolves with the first event of the session matching `test`, waiting up to `ms`. */
  waitForEvent(sessionId: string, test: (event: PushedEvent) => boolean, ms?: number): Promise<PushedEvent>;
  close(): void;
}

/** Opens a WebSocket to `url` with `headers`; rejects with the HTTP status when refused. */
export async function connectApp(url: string, headers: Record<string, string> = {}): Promise<AppClient> {
  const ws = new WebSocket(url, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_request, response) =>
      reject(Object.assign(new Error(`refused: ${response.statusCode}`), { status: response.statusCode })),
    );
    ws.once('error', reject);
  });
  const events: PushedEvent[] = [];
  const received: any[] = [];
  const waiting = new Map<number, (message: any) => void>();
  let nextId = 1;
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    received.push(message);
    if (message.method === 'acp.session.event') events.push(message.params);
    else waiting.get(message.id)?.(message);
  });
  return {
    ws,
    events,
    received,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
      });
    },
    async waitForEvent(sessionId, test, ms = 10_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = events.find((event) => event.sessionId === sessionId && test(event));
        if (found) return found;
        if (Date.now() > until) throw new Error(`no such event; got ${JSON.stringify(events.map((event) => event.type))}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => ws.close(),
  };
}

/** Removes a scratch home. */
function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/**
 * Front doors and app connections of one test file, in a scratch home: each test's connections
 * closed and front doors stopped after it, the home removed after the file (registers vitest
 * hooks; call it at the top level of a test file).
 */
export function frontDoorPool(): {
  /**
   * Starts a front door for `baseUrl` with `test-model`, no retries, `env` and `args` added;
   * stopped after the test, or after the file with `keep` (one door for several tests).
   */
  door(baseUrl: string, args?: string[], env?: Record<string, string>, keep?: boolean): Promise<FrontDoorProcess>;
  /** Connects an app to `url` with `headers`. */
  app(url: string, headers?: Record<string, string>): Promise<AppClient>;
} {
  const home = scratchHome();
  const doors: FrontDoorProcess[] = [];
  const kept: FrontDoorProcess[] = [];
  const apps: AppClient[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) app.close();
    await Promise.all(doors.splice(0).map((door) => door.stop()));
  });
  afterAll(async () => {
    await Promise.all(kept.splice(0).map((door) => door.stop()));
    removeHome(home);
  });
  return {
    door: async (baseUrl, args = [], env = {}, keep = false) => {
      const started = await startFrontDoor(home, { OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0', ...env }, args);
      (keep ? kept : doors).push(started);
      return started;
    },
    app: async (url, headers = {}) => {
      const connected = await connectApp(url, headers);
      apps.push(connected);
      return connected;
    },
  };
}
