/**
 * Who gets into `openai-acp serve` and what is said when not: the gate of each request to `/acp`
 * (`agentconnect/gate.ts`: Origin, token) with wrong tokens throttled per client address
 * (`address-throttle.ts`), the connection limits (in total and per address), and the refusal log:
 * every line names the client's address, and repeats are summarised (`repeat-summary.ts`).
 */
import type http from 'node:http';
import { admit, type GateRules } from '../agentconnect/gate.js';
import type { Logger } from '../shared/log.js';
import { AddressThrottle } from './address-throttle.js';
import { RepeatSummary } from './repeat-summary.js';
import type { ServeLimits } from './serve-flags.js';

/** A refusal: the HTTP status and the words sent. */
export interface Refusal {
  status: number;
  reason: string;
  /** Seconds, for `Retry-After`. */
  retryAfter?: number;
}

/** The client's address as counted: an IPv4-mapped IPv6 address as plain IPv4. */
export const addressOf = (req: http.IncomingMessage): string => (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.)/, '');

/** The headers of a refusal's answer. */
export const refusalHeaders = (refusal: Refusal): Record<string, string> => ({
  'Content-Type': 'text/plain',
  ...(refusal.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="openai-acp"' } : {}),
  ...(refusal.retryAfter !== undefined ? { 'Retry-After': String(refusal.retryAfter) } : {}),
});

/** What the admission reads of the server now. */
export interface AdmissionState {
  stopping(): boolean;
  /** Connections open in all. */
  open(): number;
  /** Connections open from `address`. */
  openFrom(address: string): number;
}

/** The gate, the limits and the refusal log of one server. */
export class Admission {
  private readonly throttle = new AddressThrottle();
  private readonly repeats = new RepeatSummary();

  constructor(
    private readonly rules: GateRules,
    private readonly limits: Pick<ServeLimits, 'maxConnections' | 'maxConnectionsPerAddress'>,
    private readonly state: AdmissionState,
    private readonly logger: Logger,
  ) {}

  /** Logs a refusal or a close with the client's address: the first of a kind, then one line per hundred. */
  refused(reason: string, address: string, fields: Record<string, string> = {}): void {
    const skipped = this.repeats.take(`${address}\u0000${reason}`, Date.now());
    if (skipped === undefined) return;
    this.logger.warn(`ACP client ${reason}`, { address, ...fields, ...(skipped > 0 ? { repeated: String(skipped + 1) } : {}) });
  }

  /** Why a new connection from `address` is refused now (stopping 503, full 503, its address full 429), or `undefined`. Logged. */
  whyNotNew(address: string): Refusal | undefined {
    const why = this.limit(address);
    if (why) this.refused(`connection refused: ${why.reason}`, address);
    return why;
  }

  private limit(address: string): Refusal | undefined {
    if (this.state.stopping()) return { status: 503, reason: 'stopping', retryAfter: 5 };
    if (this.state.open() >= this.limits.maxConnections) return { status: 503, reason: 'at the connection limit (--max-connections)', retryAfter: 5 };
    const fromAddress = this.state.openFrom(address);
    if (fromAddress >= this.limits.maxConnectionsPerAddress)
      return { status: 429, reason: `this address holds ${fromAddress} connections, the most allowed (--max-connections-per-address)`, retryAfter: 5 };
    return undefined;
  }

  /**
   * The gate's verdict on a request to `/acp` from `address`: an address refused for wrong tokens
   * gets 429 whatever it sends until its delay has passed; else the Origin and token are checked
   * (a wrong token counted). Logged when refused, never with what was sent but a cut origin.
   */
  gate(req: http.IncomingMessage, address: string): Refusal | undefined {
    const now = Date.now();
    const blockedMs = this.throttle.blockedFor(address, now);
    if (blockedMs > 0) {
      const retryAfter = Math.ceil(blockedMs / 1000);
      this.refused('refused: too many wrong tokens', address);
      return { status: 429, reason: `too many wrong tokens from this address; try again in ${retryAfter} s`, retryAfter };
    }
    const verdict = admit({ origin: req.headers.origin, url: req.url, authorization: req.headers.authorization }, this.rules);
    if (verdict.ok) {
      if (this.rules.token !== undefined) this.throttle.succeeded(address);
      return undefined;
    }
    if (verdict.status === 401) this.throttle.failed(address, now);
    this.refused(`refused: ${verdict.reason}`, address, req.headers.origin ? { origin: req.headers.origin.slice(0, 200) } : {});
    return verdict;
  }
}
