/**
 * What `openai-acp serve` checks on each WebSocket before the SDK's session reads it (its
 * `message` events pass through here first): a message nested deeper than `MAX_JSON_DEPTH` is
 * answered with -32600 and never parsed (`json-depth.ts`); a binary frame (ACP frames are text) is
 * dropped; a socket whose client has not sent `initialize` within the handshake time is closed
 * (1008), and one with no message either way for the idle time is closed (1001). Every refusal is
 * reported through `refused`, which logs it with the client's address (summarised).
 */
import type { WebSocket } from 'ws';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepError } from './json-depth.js';

/** Largest first message read to tell whether it is `initialize`, in bytes (an `initialize` is a few hundred). */
const MAX_INITIALIZE_BYTES = 1024 * 1024;

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

/** Watches `ws` as the module comment says, from now until it closes. */
export function guardSocket(ws: WebSocket, options: SocketGuardOptions): void {
  const { handshakeTimeoutMs, idleTimeoutMs, refused } = options;
  let initialized = false;
  let lastActivity = Date.now();
  const handshake = setTimeout(() => {
    if (initialized) return;
    refused(`closed: no initialize within ${handshakeTimeoutMs} ms`);
    ws.close(1008, 'initialize not received in time');
  }, handshakeTimeoutMs);
  handshake.unref();
  let idle: NodeJS.Timeout | undefined;
  const watchIdle = (waitMs: number) => {
    idle = setTimeout(() => {
      const quietMs = Date.now() - lastActivity;
      if (quietMs < idleTimeoutMs) return watchIdle(idleTimeoutMs - quietMs);
      refused(`closed: idle for ${idleTimeoutMs} ms`);
      ws.close(1001, 'idle');
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
