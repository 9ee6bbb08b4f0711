/**
 * Wrong tokens, counted per client address (pure bookkeeping, time passed in): the first few
 * failures are free, then the address is refused without a look at what it sends for a delay
 * that doubles with each further failure (1 s, 2 s, 4 s… at most 60 s), so guessing the token
 * from one address is slow, and a typo costs a legitimate client nothing. An address quiet for 10
 * minutes is forgotten; at most 10,000 addresses are kept (the quietest forgotten first).
 */

/** The throttle's settings, times in ms. */
export interface ThrottleOptions {
  /** Failures let through before the first delay. @defaultValue 5 */
  freeFailures?: number;
  /** The first delay. @defaultValue 1_000 */
  baseDelayMs?: number;
  /** The longest delay. @defaultValue 60_000 */
  maxDelayMs?: number;
  /** How long an address without a failure is remembered. @defaultValue 600_000 */
  forgetAfterMs?: number;
  /** Most addresses remembered. @defaultValue 10_000 */
  maxAddresses?: number;
}

interface Record {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

/** Failed token checks by address. */
export class AddressThrottle {
  private readonly records = new Map<string, Record>();
  private readonly options: Required<ThrottleOptions>;

  constructor(options: ThrottleOptions = {}) {
    this.options = { freeFailures: 5, baseDelayMs: 1_000, maxDelayMs: 60_000, forgetAfterMs: 600_000, maxAddresses: 10_000, ...options };
  }

  /** How long `address` is still refused at `now`, in ms; 0 when it may try. */
  blockedFor(address: string, now: number): number {
    const record = this.records.get(address);
    if (!record) return 0;
    if (now - record.lastFailure >= this.options.forgetAfterMs) {
      this.records.delete(address);
      return 0;
    }
    return Math.max(0, record.blockedUntil - now);
  }

  /** `address` sent a wrong token (or none) at `now`. Returns how long it is refused from now, in ms. */
  failed(address: string, now: number): number {
    const { freeFailures, baseDelayMs, maxDelayMs, maxAddresses } = this.options;
    let record = this.records.get(address);
    if (!record || now - record.lastFailure >= this.options.forgetAfterMs) record = { failures: 0, lastFailure: now, blockedUntil: 0 };
    this.records.delete(address);
    record.failures++;
    record.lastFailure = now;
    const over = record.failures - freeFailures;
    if (over > 0) record.blockedUntil = now + Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(over - 1, 30));
    // Map order is insertion order: the first key is the one that failed longest ago.
    if (this.records.size >= maxAddresses) this.records.delete(this.records.keys().next().value as string);
    this.records.set(address, record);
    return Math.max(0, record.blockedUntil - now);
  }

  /** `address` sent the right token: its failures are forgotten. */
  succeeded(address: string): void {
    this.records.delete(address);
  }
}
