/**
 * The Streamable HTTP connections of `openai-acp serve` and whose each is (pure bookkeeping, no
 * timers). A connection belongs to the client that sent its `initialize`: that client carries the
 * `acp-client` cookie (set on that answer when it had none), and every later request naming the
 * connection's `Acp-Connection-Id` must carry the same cookie, so knowing another client's
 * connection id is not enough to post to it, read its streams or DELETE it (such a request is
 * answered as an unknown id). WebSocket connections are reached only over their socket and are
 * never listed here.
 *
 * A connection with no event stream open has a client that went away without a DELETE: after a
 * while ({@link HttpConnections.idle}) it is ended, as a closed WebSocket is at once.
 *
 * Source: ACP RFD "Streamable HTTP & WebSocket Transport" (https://agentclientprotocol.com/rfds/streamable-http-websocket-transport):
 * clients MUST accept, store and return cookies on HTTP transports for the duration of a connection.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

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
  /** The client's address (for the per-address limit). */
  address: string;
  /** Event streams (GET) open now. */
  streams: number;
  /** When the last stream closed (or the connection was made), in ms since the epoch, while none is open. */
  idleSince: number | undefined;
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
    this.tracked.set(connectionId, { client: Buffer.from(clientId), address, streams: 0, idleSince: now });
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
    tracked.idleSince = undefined;
  }

  /** An event stream of the connection closed, at `now` (ms). */
  streamClosed(connectionId: string, now: number): void {
    const tracked = this.tracked.get(connectionId);
    if (!tracked) return;
    tracked.streams = Math.max(0, tracked.streams - 1);
    if (tracked.streams === 0) tracked.idleSince = now;
  }

  /** The connections without an open event stream for `ms` or longer at `now`. */
  idle(now: number, ms: number): string[] {
    return [...this.tracked].filter(([, t]) => t.idleSince !== undefined && now - t.idleSince >= ms).map(([id]) => id);
  }

  /** Stops tracking the connection (deleted, ended or closed). */
  forget(connectionId: string): void {
    this.tracked.delete(connectionId);
  }
}
