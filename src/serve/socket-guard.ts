/**
 * What `openai-acp serve` checks on each WebSocket before the SDK's session reads it (the socket's
 * bytes and its `message` events pass through here first): a text message nested deeper than
 * `MAX_JSON_DEPTH` is answered with -32600 and never handed to `ws` (`ws-frames.ts` reads the
 * frames as they arrive, so it is refused at its first bracket past the limit, and its megabytes
 * are neither held, unmasked nor parsed); a binary frame (ACP frames are text) is
 * dropped; a socket whose client has not sent `initialize` within the handshake time is closed
 * (1008), and one with no message either way for the idle time is closed (1001); a closed socket
 * whose client does not answer the close is cut a second later (not after `ws`'s 30 s). Before
 * `initialize` a client may send at most 256 KiB: the `ws` library holds an unfinished message
 * in memory up to `--max-message-bytes`, so 512 sockets each 2 MiB into a message held 1 GiB.
 * Every refusal is reported through `refused`, which logs it with the client's address
 * (summarised).
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { DepthScanner, MAX_JSON_DEPTH, tooDeepError } from './json-depth.js';
import { ClientFrames, MAX_FRAGMENTS } from './ws-frames.js';

/** Largest first message read to tell whether it is `initialize`, in bytes (an `initialize` is a few hundred). */
const MAX_INITIALIZE_BYTES = 1024 * 1024;
/** Most bytes a client may send before its `initialize` (frames included). */
const MAX_BYTES_BEFORE_INITIALIZE = 256 * 1024;
/** How long a closed socket waits for its client's close frame before it is cut, in ms. */
const CLOSE_GRACE_MS = 1_000;

/** How one socket is watched. Times in ms. */
export interface SocketGuardOptions {
  handshakeTimeoutMs: number;
  idleTimeoutMs: number;
  /** Largest message, in bytes (`ws`'s `maxPayload`). */
  maxMessageBytes: number;
  /** A refusal or a close, in words, to be logged with the client's address. */
  refused(reason: string): void;
  /** Called on every message the agent sends (for the shutdown's wait for quiet). */
  sent?: () => void;
}

/** The bytes of a `ws` message event's data (a Buffer, a list of them, or an ArrayBuffer). */
function bytesOf(data: unknown): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data as Uint8Array;
}

/** Whether `bytes` is a JSON-RPC `initialize` request with an id. */
function isInitialize(bytes: Uint8Array): boolean {
  if (bytes.length > MAX_INITIALIZE_BYTES) return false;
  try {
    const message = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')) as { method?: unknown; id?: unknown };
    return message?.method === 'initialize' && message.id !== undefined && message.id !== null;
  } catch {
    return false;
  }
}

/** Closes `ws` with `code`, cutting it when its client does not answer within {@link CLOSE_GRACE_MS}. */
function closeFirmly(ws: WebSocket, code: number, reason: string): void {
  ws.close(code, reason);
  setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
}

/** Watches `ws` (upgraded from `raw`) as the module comment says, from now until it closes. */
export function guardSocket(ws: WebSocket, raw: Duplex, options: SocketGuardOptions): void {
  const { handshakeTimeoutMs, idleTimeoutMs, refused } = options;
  let initialized = false;
  let lastActivity = Date.now();
  let before = 0;
  let cut = false;
  const countBefore = (chunk: Buffer) => {
    if (initialized || cut) return;
    before += chunk.length;
    if (before <= MAX_BYTES_BEFORE_INITIALIZE) return;
    cut = true;
    refused(`closed: more than ${MAX_BYTES_BEFORE_INITIALIZE} bytes before initialize`);
    ws.terminate();
  };
  // The socket's bytes go through the frame reader on their way to `ws` (whose reader listens to `data`).
  const frames = new ClientFrames(MAX_JSON_DEPTH, options.maxMessageBytes);
  const rawEmit = raw.emit.bind(raw) as (event: string | symbol, ...args: unknown[]) => boolean;
  raw.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== 'data') return rawEmit(event, ...args);
    const chunk = args[0] as Buffer;
    countBefore(chunk);
    const { pass, refused: tooDeep, fragmented } = frames.push(chunk);
    if (fragmented) {
      if (!cut) refused(`closed: a message in more than ${MAX_FRAGMENTS} frames`);
      cut = true;
      ws.terminate();
      return true;
    }
    for (const part of pass) rawEmit('data', Buffer.from(part.buffer, part.byteOffset, part.length));
    for (let i = 0; i < tooDeep; i++) {
      lastActivity = Date.now();
      refused(`refused a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(tooDeepError()));
    }
    return true;
  }) as typeof raw.emit;
  const handshake = setTimeout(() => {
    if (initialized) return;
    refused(`closed: no initialize within ${handshakeTimeoutMs} ms`);
    closeFirmly(ws, 1008, 'initialize not received in time');
  }, handshakeTimeoutMs);
  handshake.unref();
  let idle: NodeJS.Timeout | undefined;
  const watchIdle = (waitMs: number) => {
    idle = setTimeout(() => {
      const quietMs = Date.now() - lastActivity;
      if (quietMs < idleTimeoutMs) return watchIdle(idleTimeoutMs - quietMs);
      refused(`closed: idle for ${idleTimeoutMs} ms`);
      closeFirmly(ws, 1001, 'idle');
    }, waitMs);
    idle.unref();
  };
  watchIdle(idleTimeoutMs);
  ws.once('close', () => {
    clearTimeout(handshake);
    clearTimeout(idle);
  });

  const emit = ws.emit.bind(ws) as (event: string | symbol, ...args: unknown[]) => boolean;
  ws.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== 'message') return emit(event, ...args);
    lastActivity = Date.now();
    const [data, isBinary] = args;
    if (isBinary) {
      refused('dropped a binary frame (ACP frames are text)');
      return true;
    }
    // Bytes that went to `ws` unread (the frame reader handed on what `ws` must judge) are checked here.
    if (frames.handingOn && new DepthScanner(MAX_JSON_DEPTH).push(bytesOf(data))) {
      refused(`refused a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(tooDeepError()));
      return true;
    }
    if (!initialized && isInitialize(bytesOf(data))) {
      initialized = true;
      clearTimeout(handshake);
    }
    return emit(event, ...args);
  }) as typeof ws.emit;

  const send = ws.send.bind(ws) as (...args: unknown[]) => void;
  ws.send = ((...args: unknown[]) => {
    lastActivity = Date.now();
    options.sent?.();
    send(...args);
  }) as typeof ws.send;
}
