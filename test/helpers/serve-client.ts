/**
 * Runs `openai-acp serve` from the built CLI (port 0, a scratch home and state directory) and
 * talks to it as a remote ACP client does: through the SDK's own `experimental/ws-client` and
 * `experimental/http-client` streams, with the SDK's client app on top (permission requests
 * answered with an allow option unless the test says otherwise).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { client, type ClientCapabilities, type ClientContext, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import WebSocket from 'ws';
import { startFakeOpenAI, type ChatHandler, type FakeOpenAI } from './fake-openai.js';
import { CLI } from './spawn-agent.js';
import { patientDeadline } from './patience.js';

/** A running `openai-acp serve`. */
export interface ServeProcess {
  /** `http://127.0.0.1:PORT/acp`. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code (or signal) once the process exits. */
  exited: Promise<number | string | null>;
}

/** The file's shared `serve` as one case sees it (`serveFixtures().sharedForFile`). */
export interface SharedServe extends ServeProcess {
  /** Its fake model. */
  model: FakeOpenAI;
  /** Its scratch home and the workspace root it serves. */
  home: string;
  root: string;
  /** A folder of the case's own inside the root. */
  cwd: string;
  /** Everything the process wrote on stderr since it started (`stderr()` is the case's part). */
  allStderr(): string;
}

/** The environment of a served agent under `home`: config and state there, no inherited OPENAI_*. */
function serveEnv(home: string, env: Record<string, string>): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    OPENAI_ACP_IN_CONTAINER: 'false',
    PATH: process.env['PATH'] ?? '',
    OPENAI_ACP_LOG: 'debug',
    ...env,
  };
}

/** Starts `openai-acp serve --port 0 …args` in `cwd` with `env` over {@link serveEnv}; resolves once it listens (rejects if it exits first). */
export async function startServe(home: string, env: Record<string, string>, args: string[] = [], cwd = home): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { env: serveEnv(home, env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (data: string) => {
      stderr += data;
      const found = /openai-acp serve on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(Object.assign(new Error(`serve exited (${code}):\n${stderr}`), { code })));
  });
  return {
    url,
    child,
    exited,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return (await exited) as number | null;
    },
  };
}

/** The SDK's two remote transports. */
export type Transport = 'ws' | 'http';

/** One remote ACP client connection. */
export interface RemoteClient {
  agent: ClientContext;
  updates: SessionNotification[];
  /** The `session/request_permission` requests received, in order. */
  permissions: any[];
  /** Concatenated `agent_message_chunk` text of a session. */
  text(sessionId: string): string;
  /** Resolves once the connection has closed. */
  closed: Promise<void>;
  close(): void;
}

/** How a {@link RemoteClient} connects. */
export interface ConnectOptions {
  token?: string;
  headers?: Record<string, string>;
  capabilities?: ClientCapabilities;
  /** The permission option to pick (by kind prefix); `cancelled` answers with the cancelled outcome. @defaultValue `allow` */
  permission?: 'allow' | 'reject' | 'cancelled';
  /** Called with the WebSocket the stream opens (`ws` transport), e.g. to pause its reading. */
  onSocket?: (socket: WebSocket) => void;
}

/** Connects to `url` over `transport` with the SDK's stream and client app, and runs `initialize`. */
export async function connectRemote(url: string, transport: Transport, options: ConnectOptions = {}): Promise<RemoteClient> {
  const headers = { ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}), ...options.headers };
  const onSocket = options.onSocket;
  const Socket = onSocket
    ? class extends WebSocket {
        constructor(...args: ConstructorParameters<typeof WebSocket>) {
          super(...args);
          onSocket?.(this);
        }
      }
    : WebSocket;
  const stream =
    transport === 'ws' ? createWebSocketStream(url.replace(/^http/, 'ws'), { WebSocket: Socket as never, headers }) : createHttpStream(url, { headers });
  const updates: SessionNotification[] = [];
  const permissions: any[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', ({ params }) => {
      permissions.push(params);
      const choice = options.permission ?? 'allow';
      if (choice === 'cancelled') return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind.startsWith(choice))!.optionId } };
    })
    .connect(stream);
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: options.capabilities ?? {} });
  return {
    agent: connection.agent,
    updates,
    permissions,
    text: (sessionId) =>
      updates
        .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
        .map((n) => (n.update as { content: { text: string } }).content.text)
        .join(''),
    closed: connection.closed,
    close: () => connection.close(),
  };
}

/** Resolves once `test()` holds, polling every 10 ms for up to `ms` (at least `PATIENCE_MS`). */
export async function until(test: () => boolean, ms = 10_000, what = 'the condition'): Promise<void> {
  const end = patientDeadline(ms);
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The serve processes, clients and scratch homes of one test file: processes stopped and clients
 * closed after each test (that of `sharedForFile` after the file), homes removed after the
 * file. Call it at the top level of a test file.
 */
export function serveFixtures() {
  const homes: string[] = [];
  const serving: ServeProcess[] = [];
  const kept: Promise<ServeProcess>[] = [];
  const clients: RemoteClient[] = [];
  afterEach(async () => {
    // Closed and awaited, so what a closing logs is not read by the next case of a shared serve.
    await Promise.all(
      clients.splice(0).map((remote) => {
        remote.close();
        return remote.closed.catch(() => undefined);
      }),
    );
    await Promise.all(serving.splice(0).map((process) => process.stop()));
  });
  afterAll(async () => {
    await Promise.all(kept.splice(0).map(async (starting) => (await starting.catch(() => undefined))?.stop()));
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });
  return {
    /** A scratch home with an empty workspace root, `workspace`, inside it. */
    scratch(): { home: string; root: string } {
      const home = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-serve-')));
      homes.push(home);
      const root = join(home, 'workspace');
      mkdirSync(root);
      return { home, root };
    },
    /** {@link startServe}, stopped after the test. */
    async start(...args: Parameters<typeof startServe>): Promise<ServeProcess> {
      const started = await startServe(...args);
      serving.push(started);
      return started;
    },
    /**
     * One `serve` per file, against its own loopback fake model (`test-model`, plus `env`), in a
     * scratch home whose workspace it serves (`--root`, plus `args`): started by the first call
     * of the returned function, stopped after the file. For the cases that need no settings of
     * their own and neither stop nor restart it nor use up what it limits (a process start costs
     * ~0.3 s of CPU). Each call sets the model's handler (when given) and forgets its recorded
     * requests, and gives the process with `stderr()` from that call on, its home and root, and
     * `cwd`, a fresh folder inside the root for the case to work in.
     */
    sharedForFile(args: string[], env: Record<string, string> = {}): (handler?: ChatHandler) => Promise<SharedServe> {
      const { home, root } = this.scratch();
      let model: FakeOpenAI | undefined;
      let starting: Promise<ServeProcess> | undefined;
      afterAll(async () => {
        await model?.close();
      });
      return async (handler) => {
        if (starting === undefined) {
          starting = startFakeOpenAI().then((started) => {
            model = started;
            return startServe(home, { OPENAI_BASE_URL: started.baseUrl, OPENAI_MODEL: 'test-model', ...env }, ['--root', root, ...args]);
          });
          kept.push(starting);
        }
        const served = await starting;
        if (handler) model!.handle(handler);
        model!.requests.length = 0;
        const from = served.stderr().length;
        return {
          ...served,
          stderr: () => served.stderr().slice(from),
          allStderr: served.stderr,
          model: model!,
          home,
          root,
          cwd: mkdtempSync(join(root, 'case-')),
        };
      };
    },
    /** {@link connectRemote}, closed after the test. */
    async connect(...args: Parameters<typeof connectRemote>): Promise<RemoteClient> {
      const connected = await connectRemote(...args);
      clients.push(connected);
      return connected;
    },
  };
}
