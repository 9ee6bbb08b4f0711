/**
 * The Streamable HTTP connections of `openai-acp serve` and whose each is (pure bookkeeping, no
 * timers). A connection belongs to the client that sent its `initialize`: that client carries the
 * `acp-client` cookie (set on that answer when it had none), and every later request naming the
 * connection's `Acp-Connection-Id` must carry the same cookie, so knowing another client's
 * connection id is not enough to post to it, read its streams or DELETE it (such a request is
 * answered as an unknown id). WebSocket connections are reached only over their socket and are
 * never listed here.
 *
 * Which connections are to be ended ({@link HttpConnections.expired}), as a WebSocket is closed:
 * one whose client never opened its event stream after `initialize` (the SDK's client opens it at
 * once: a client that does not is not using the connection) within the handshake time; one with no
 * event stream open for a while (its client went away without a DELETE, as a closed WebSocket is
 * at once); and one with no message either way for the idle time, streams open or not.
 *
 * Source: ACP RFD "Streamable HTTP & WebSocket Transport" (https://agentclientprotocol.com/rfds/streamable-http-websocket-transport):
 * clients MUST accept, store and return cookies on HTTP transports for the duration of a connection.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The header naming a connection (ACP RFD "Streamable HTTP & WebSocket Transport", "Identity Model"). */
export const CONNECTION_HEADER = 'Acp-Connection-Id';

/** The cookie naming the client a connection belongs to. */
const CLIENT_COOKIE = 'acp-client';

/** The `Set-Cookie` value giving a client its id: only over HTTP(S) to this server, not readable by page scripts. */
export function clientCookie(clientId: string): string {
  return `${CLIENT_COOKIE}=${clientId}; Path=/; HttpOnly; SameSite=Strict`;
}

/** A new client id: 32 random bytes, base64url (a valid cookie value). */
export function newClientId(): string {
  return randomBytes(32).toString('base64url');
}

/** The client id a `Cookie` header carries, or `undefined`. */
export function clientIdOf(cookieHeader: string | null | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === CLIENT_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

interface Tracked {
  client: Buffer;
  /** The client's address (for the per-address limit and the log). */
  address: string;
  /** When `initialize` made it, in ms since the epoch. */
  createdAt: number;
  /** Whether an event stream of it has ever been open. */
  streamed: boolean;
  /** Event streams (GET) open now. */
  streams: number;
  /** When the last stream closed (or the connection was made), in ms since the epoch, while none is open. */
  idleSince: number | undefined;
  /** When the last message went either way, in ms since the epoch. */
  lastMessage: number;
}

/** How long a connection may go without each thing before it is ended, in ms. */
export interface HttpTimeouts {
  /** Without its first event stream, from `initialize` on. */
  handshakeMs: number;
  /** Without any event stream open, once it has had one. */
  streamlessMs: number;
  /** Without a message either way. */
  idleMs: number;
}

/** A connection to end, and why (in words for the log). */
export interface Expired {
  connectionId: string;
  address: string;
  reason: string;
}

/** Every Streamable HTTP connection open, with its client. */
export class HttpConnections {
  private readonly tracked = new Map<string, Tracked>();

  /** Number of connections tracked. */
  get size(): number {
    return this.tracked.size;
  }

  /** Records a connection `initialize` just made for `clientId` at `address`, at `now` (ms). */
  created(connectionId: string, clientId: string, now: number, address = 'unknown'): void {
    this.tracked.set(connectionId, { client: Buffer.from(clientId), address, createdAt: now, streamed: false, streams: 0, idleSince: now, lastMessage: now });
  }

  /** Number of connections tracked for clients at `address`. */
  countFrom(address: string): number {
    let count = 0;
    for (const tracked of this.tracked.values()) if (tracked.address === address) count++;
    return count;
  }

  /** Whether `clientId` (from the request's cookie) owns `connectionId`; compared in constant time. */
  owns(connectionId: string, clientId: string | undefined): boolean {
    const tracked = this.tracked.get(connectionId);
    if (!tracked || clientId === undefined) return false;
    const given = Buffer.from(clientId);
    return given.length === tracked.client.length && timingSafeEqual(given, tracked.client);
  }

  /** An event stream of the connection opened. */
  streamOpened(connectionId: string): void {
    const tracked = this.tracked.get(connectionId);
    if (!tracked) return;
    tracked.streams++;
    tracked.streamed = true;
    tracked.idleSince = undefined;
  }

  /** An event stream of the connection closed, at `now` (ms). */
  streamClosed(connectionId: string, now: number): void {
    const tracked = this.tracked.get(connectionId);
    if (!tracked) return;
    tracked.streams = Math.max(0, tracked.streams - 1);
    if (tracked.streams === 0) tracked.idleSince = now;
  }

  /** A message went to or came from the client of the connection at `now` (ms). */
  messaged(connectionId: string, now: number): void {
    const tracked = this.tracked.get(connectionId);
    if (tracked) tracked.lastMessage = now;
  }

  /** The client's address of a connection, or `undefined` when it is not tracked. */
  addressOf(connectionId: string): string | undefined {
    return this.tracked.get(connectionId)?.address;
  }

  /** The connections to end at `now` under `timeouts`, each with why. */
  expired(now: number, timeouts: HttpTimeouts): Expired[] {
    const ended: Expired[] = [];
    for (const [connectionId, t] of this.tracked) {
      const end = (reason: string) => ended.push({ connectionId, address: t.address, reason });
      if (!t.streamed && now - t.createdAt >= timeouts.handshakeMs) end(`no event stream opened within ${timeouts.handshakeMs} ms of initialize`);
      else if (t.streamed && t.idleSince !== undefined && now - t.idleSince >= timeouts.streamlessMs)
        end(`no event stream open for ${timeouts.streamlessMs} ms (the client went away)`);
      else if (now - t.lastMessage >= timeouts.idleMs) end(`idle for ${timeouts.idleMs} ms`);
    }
    return ended;
  }

  /** Stops tracking the connection (deleted, ended or closed). */
  forget(connectionId: string): void {
    this.tracked.delete(connectionId);
  }
}
