/**
 * The network side of `openai-acp serve`: a `node:http` server whose one endpoint, `/acp`, is the
 * SDK's `AcpServer` (Streamable HTTP through its Node adapter, WebSocket upgrades through its
 * upgrade adapter and the `ws` library), behind the same gate as the AgentConnect front door
 * (`agentconnect/gate.ts`: a browser `Origin` must be allowed, the bearer token must match; wrong
 * tokens throttled per address, `address-throttle.ts`); connections limited in total and per
 * client address; each WebSocket watched (`socket-guard.ts`: nesting depth, handshake and idle
 * time); CORS for pages of allowed origins (`browser-cors.ts`); `GET /health` (the process
 * runs) and `GET /ready` (it may take traffic: `process-health.ts`) for probes. A POST's body is
 * read here, its depth checked as it arrives (`http-post.ts`); a Streamable HTTP connection is
 * ended as a WebSocket is closed: no event stream after `initialize` within the handshake time,
 * none open for a while, or no message either way for the idle time (`http-connections.ts`).
 * Every log line about a connection carries the client's address (`connection-log.ts`), refusals
 * summarised (`repeat-summary.ts`). Each accepted connection is its own ACP connection over the
 * agent's sessions (`OpenAIAgent.connection`). A lazy chunk: serving ACP on stdio never loads it,
 * the SDK's server or `ws`.
 *
 * Source: ACP RFD "Streamable HTTP & WebSocket Transport" (https://agentclientprotocol.com/rfds/streamable-http-websocket-transport),
 * as the SDK (`@agentclientprotocol/sdk` 2.x `experimental/server`, `experimental/node`) implements it.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AgentFactory } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler, type NodeWebSocketUpgradeServer } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocketServer } from 'ws';
import type { OpenAIAgent } from '../acp/agent.js';
import { listen } from '../agentconnect/listen.js';
import type { Logger } from '../shared/log.js';
import { Admission, addressOf, refusalHeaders } from './admission.js';
import { answerBrowser } from './browser-cors.js';
import { ConnectionLog } from './connection-log.js';
import { HttpConnections, clientIdOf } from './http-connections.js';
import { answerPost } from './http-post.js';
import { misdirectedAnswer } from './misdirected-client.js';
import { ADDRESS_HEADER, CONNECTION_HEADER, OwnedAcpServer, textResponse } from './owned-acp-server.js';
import { watchProcessHealth } from './process-health.js';
import type { ServeLimits } from './serve-flags.js';
import { guardedSockets } from './guarded-sockets.js';

/** The one ACP endpoint (the RFD's `/acp`). */
export const ACP_PATH = '/acp';
/** How long a Streamable HTTP connection may go without an open event stream before it is ended, in ms. */
const HTTP_IDLE_MS = 30_000;

/** What the server is built from. */
export interface NetworkServerOptions {
  agent: Pick<OpenAIAgent, 'connection'>;
  /** Address and port to listen on; port 0 picks a free one. */
  host: string;
  port: number;
  /** The bearer token every `/acp` request must carry; `undefined`: none. */
  token: string | undefined;
  /** Browser origins let in, normalised. */
  allowOrigins: readonly string[];
  limits: ServeLimits;
  logger: Logger;
  /** Why the agent cannot serve now (e.g. an invalid configuration), for `/ready`; `undefined` when it can. */
  notReady: () => string | undefined;
  /** The directory sessions are written to, checked by `/ready`; `undefined`: in memory. */
  storeDir?: () => Promise<string | undefined>;
  /** How long a Streamable HTTP connection may go without an open event stream, in ms. @defaultValue 30 s */
  httpIdleMs?: number;
  /** The client context of log lines, shared with the agent's logger. @defaultValue a context of its own */
  connectionLog?: ConnectionLog;
}

/** A running server. */
export interface NetworkServer {
  /** `http://host:port/acp` as listened on (the WebSocket URL is the same with `ws:`). */
  url: string;
  /** Connections open now (WebSocket and Streamable HTTP). */
  readonly connections: number;
  /** Stops taking connections: `/ready` answers 503 and a new connection is refused from now on. */
  drain(): void;
  /** Resolves once no message has gone to any client for `quietMs` (answers still on their way are out), or after `maxMs`. */
  quiet(quietMs: number, maxMs: number): Promise<void>;
  /** {@link drain}, then closes every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts the server; resolves once it listens. @throws the listen error (e.g. EADDRINUSE). */
export async function startNetworkServer(options: NetworkServerOptions): Promise<NetworkServer> {
  const { limits } = options;
  const httpIdleMs = options.httpIdleMs ?? HTTP_IDLE_MS;
  const connections = new HttpConnections();
  const connectionLog = options.connectionLog ?? new ConnectionLog();
  const logger = connectionLog.logger(options.logger);
  const restoreConsole = connectionLog.routeConsole(options.logger, (id) => connections.addressOf(id));
  /** WebSockets open, by client address. */
  const socketsFrom = new Map<string, number>();
  const health = watchProcessHealth(options.storeDir ?? (async () => undefined));
  let open = 0;
  let stopping = false;
  let lastSent = Date.now();
  const admission = new Admission(
    options,
    limits,
    {
      stopping: () => stopping,
      open: () => open,
      openFrom: (address) => connections.countFrom(address) + (socketsFrom.get(address) ?? 0),
    },
    logger,
  );

  /** Each connection: its own agent app over the shared sessions, counted while open, its sessions let go of once closed. */
  const createAgent: AgentFactory = () => ({
    connect(stream, connectOptions) {
      const { app, release } = options.agent.connection({ maxSessions: limits.maxSessions });
      const connection = (app as ReturnType<AgentFactory>).connect(stream, connectOptions) as { closed: Promise<void> };
      open++;
      logger.debug('ACP connection opened', { open });
      void connection.closed.finally(() => {
        open--;
        logger.debug('ACP connection closed', { open });
        void release();
      });
      return connection;
    },
  });
  const acp = new OwnedAcpServer(
    { createAgent, maxBufferedBytes: limits.maxBufferedBytes, maxOutputStallMs: limits.maxOutputStallMs },
    connections,
    (address) => {
      const why = admission.whyNotNew(address);
      return why && textResponse(`openai-acp cannot take a new connection now: ${why.reason}`, why.status, { 'Retry-After': String(why.retryAfter ?? 5) });
    },
  );
  const handleAcp = createNodeHttpHandler(acp, { maxRequestBodyBytes: limits.maxMessageBytes });
  const handlePost = (req: http.IncomingMessage, res: http.ServerResponse, address: string) =>
    answerPost(req, res, acp, limits.maxMessageBytes, (reason) => admission.refused(reason, address));
  // No compression: the frame reader (`ws-frames.ts`) checks depth in the bytes as they come, which a
  // compressed frame would hide (with it off, `ws` refuses a compressed frame, close 1002).
  const sockets = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/health' || path === '/ready')) {
      void (async () => {
        const why = path === '/ready' ? (stopping ? 'stopping' : (options.notReady() ?? (await health.problem()))) : undefined;
        res.writeHead(why ? 503 : 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify(why ? { ready: false, reason: why } : path === '/ready' ? { ready: true } : { status: 'ok' }));
      })();
      return;
    }
    if (path !== ACP_PATH) {
      req.resume();
      // A client posting JSON-RPC elsewhere (acp-http-client's default `/v1/rpc`) reads a JSON answer.
      if (req.method === 'POST' || /json/i.test(req.headers.accept ?? '')) {
        const { status, body } = misdirectedAnswer('wrong-path', null, ACP_PATH);
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      } else res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`Not found: the ACP endpoint is ${ACP_PATH}\n`);
      return;
    }
    // A browser's preflight carries no credentials: only its origin is checked.
    if (answerBrowser(req, res, options.allowOrigins)) return;
    const address = addressOf(req);
    const gate = admission.gate(req, address);
    if (gate) {
      req.resume();
      res.writeHead(gate.status, refusalHeaders(gate));
      res.end(`${gate.reason}\n`);
      return;
    }
    // The SDK's request carries no socket: the address goes in a header of ours (never one the client sent).
    req.headers[ADDRESS_HEADER] = address;
    // An event stream open keeps its connection from being ended as gone; a message on it, as idle.
    const streamOf = req.method === 'GET' ? req.headers[CONNECTION_HEADER.toLowerCase()] : undefined;
    if (typeof streamOf === 'string' && connections.owns(streamOf, clientIdOf(req.headers.cookie))) {
      connections.streamOpened(streamOf);
      res.once('close', () => connections.streamClosed(streamOf, Date.now()));
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((...args: unknown[]) => {
        lastSent = Date.now();
        // A keep-alive (an SSE comment, `:`) is no message.
        const [chunk] = args;
        if (!(chunk instanceof Uint8Array && chunk[0] === 0x3a)) connections.messaged(streamOf, lastSent);
        return write(...args);
      }) as typeof res.write;
    }
    connectionLog.run(address, () => (req.method === 'POST' ? void handlePost(req, res, address) : handleAcp(req, res)));
  });

  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const address = addressOf(req);
    const refused =
      path !== ACP_PATH ? { status: 404, reason: `the ACP endpoint is ${ACP_PATH}` } : (admission.gate(req, address) ?? admission.whyNotNew(address));
    if (refused) {
      const { status, reason } = refused;
      const text = status === 503 || status === 429 ? `openai-acp cannot take a new connection now: ${reason}` : reason;
      const headers = Object.entries(refusalHeaders(refused)).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n${headers.join('')}\r\n${text}\n`);
      return;
    }
    const guard = {
      handshakeTimeoutMs: limits.handshakeTimeoutMs,
      idleTimeoutMs: limits.idleTimeoutMs,
      maxMessageBytes: limits.maxMessageBytes,
      refused: (reason: string) => admission.refused(reason, address),
      sent: () => (lastSent = Date.now()),
    };
    const guarded = guardedSockets(sockets, address, { openFrom: socketsFrom, connectionLog, guard });
    connectionLog.run(address, () => createNodeWebSocketUpgradeHandler(acp, guarded as unknown as NodeWebSocketUpgradeServer)(req, socket, head));
  });

  // Streamable HTTP connections never used, whose client went away without a DELETE, or idle: ended.
  const timeouts = { handshakeMs: limits.handshakeTimeoutMs, streamlessMs: httpIdleMs, idleMs: limits.idleTimeoutMs };
  const sweep = setInterval(
    () => {
      for (const { connectionId, address, reason } of connections.expired(Date.now(), timeouts)) {
        admission.refused(`connection ended: ${reason}`, address);
        void acp.end(connectionId).catch(() => undefined);
      }
    },
    Math.max(10, Math.min(1_000, Math.floor(Math.min(timeouts.handshakeMs, timeouts.streamlessMs, timeouts.idleMs) / 3))),
  );
  sweep.unref();

  const authority = await listen(server, options.port, options.host);
  return {
    url: `http://${authority}${ACP_PATH}`,
    get connections() {
      return open;
    },
    drain: () => {
      stopping = true;
    },
    quiet: async (quietMs, maxMs) => {
      const end = Date.now() + maxMs;
      const pending = () => [...sockets.clients].some((ws) => ws.bufferedAmount > 0);
      while (Date.now() < end && (Date.now() - lastSent < quietMs || pending())) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    close: async () => {
      stopping = true;
      clearInterval(sweep);
      health.stop();
      restoreConsole();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await acp.close();
      // A socket whose client stopped reading would hold the close handshake (and the exit) for ws's 30 s.
      for (const socket of sockets.clients) socket.terminate();
      sockets.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
