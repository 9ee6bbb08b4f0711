/**
 * What `openai-acp serve` checks on each WebSocket before the SDK's session reads it (its
 * `message` events pass through here first): a message nested deeper than `MAX_JSON_DEPTH` is
 * answered with -32600 and never parsed (`json-depth.ts`); a binary frame (ACP frames are text) is
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
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepError } from './json-depth.js';

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
  const countBefore = (chunk: Buffer) => {
    before += chunk.length;
    if (before <= MAX_BYTES_BEFORE_INITIALIZE || initialized) return;
    raw.off('data', countBefore);
    refused(`closed: more than ${MAX_BYTES_BEFORE_INITIALIZE} bytes before initialize`);
    ws.terminate();
  };
  raw.on('data', countBefore);
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
    const bytes = bytesOf(data);
    if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
      refused(`refused a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      ws.send(JSON.stringify(tooDeepError()));
      return true;
    }
    if (!initialized && isInitialize(bytes)) {
      initialized = true;
      clearTimeout(handshake);
      raw.off('data', countBefore);
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
