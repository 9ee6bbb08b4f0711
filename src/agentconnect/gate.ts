/**
 * Who may open the front door (pure): decided on the WebSocket upgrade request, before any
 * method runs. A browser always sends `Origin` with a WebSocket handshake (RFC 6455 §4.1, item 8;
 * Fetch "origin header"), so any web page could reach `ws://127.0.0.1:9630`: a request carrying
 * an `Origin` not named with `--allow-origin` is refused; one without (a Node app's backend, a
 * CLI) is let in. With a token configured, the request must also carry it: as `?token=` in the URL
 * (the AgentConnect SDK connects with a URL only: `AgentConnect.connect({host:
 * "ws://127.0.0.1:9630/?token=…"})`) or as `Authorization: Bearer <token>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** What the gate needs from the upgrade request. */
export interface Knock {
  /** The `Origin` header, when sent. */
  origin: string | undefined;
  /** The request target, e.g. `/?token=abc`. */
  url: string | undefined;
  /** The `Authorization` header, when sent. */
  authorization: string | undefined;
}

/** The front door's rules. */
export interface GateRules {
  /** Browser origins let in, normalised by {@link normalizeOrigin}. */
  allowOrigins: readonly string[];
  /** The shared secret, when one is required. */
  token: string | undefined;
}

/** The verdict: let in, or refused with an HTTP status and a reason (never holding what was sent). */
export type Verdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/** The default port of each scheme whose origin a browser sends without it (WHATWG URL, "special scheme"). */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443 };

/**
 * An origin as compared: lower case, without a trailing slash, and without the scheme's default
 * port (`https://App.example:443/` → `https://app.example`, `http://localhost:80` →
 * `http://localhost`: a browser never sends a default port, RFC 6454 §6.2 and the WHATWG URL
 * serialization); `null` stays `null` (sandboxed frames and `file:` pages send it).
 */
export function normalizeOrigin(origin: string): string {
  const lowered = origin.trim().toLowerCase().replace(/\/+$/, '');
  const parts = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]*\]|[^/:?#\s]+)(?::(\d{1,5}))?$/.exec(lowered);
  if (!parts?.[3]) return lowered;
  const [, scheme, host, port] = parts;
  const number = Number(port);
  return number === DEFAULT_PORTS[scheme!] ? `${scheme}://${host}` : `${scheme}://${host}:${number}`;
}

/** Constant-time string comparison (both sides hashed first, so lengths leak nothing either). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token a request carries: `?token=` first, else `Authorization: Bearer`. */
function tokenOf(knock: Knock): string | undefined {
  try {
    const fromQuery = new URL(knock.url ?? '/', 'ws://localhost').searchParams.get('token');
    if (fromQuery) return fromQuery;
  } catch {
    // An unparsable target carries no token.
  }
  const match = /^Bearer\s+(.+)$/i.exec(knock.authorization?.trim() ?? '');
  return match?.[1]?.trim() || undefined;
}

/** Whether `host` (an address to listen on) names this machine's loopback only. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The verdict on one upgrade request: the origin first, then the token. */
export function admit(knock: Knock, rules: GateRules): Verdict {
  if (knock.origin !== undefined && !rules.allowOrigins.includes(normalizeOrigin(knock.origin))) {
    return { ok: false, status: 403, reason: 'origin not allowed (start the front door with --allow-origin ORIGIN to let a web app in)' };
  }
  if (rules.token !== undefined) {
    const given = tokenOf(knock);
    if (given === undefined || !sameSecret(given, rules.token)) return { ok: false, status: 401, reason: 'missing or wrong token' };
  }
  return { ok: true };
}
