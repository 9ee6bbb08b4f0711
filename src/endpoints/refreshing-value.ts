/**
 * A value that expires (temporary AWS credentials, an Entra ID access token), fetched on first
 * use, reused while fresh, and fetched again a margin before it expires, so a request is never
 * signed with credentials that lapse while it is in flight. Concurrent callers share one fetch;
 * a failed fetch is not cached (the next call tries again).
 */

/** How to get the value and when it stops being usable. */
export interface RefreshingValueOptions<T> {
  /** Gets a fresh value. `forceRefresh` is true when a cached value is being replaced. */
  fetch: (forceRefresh: boolean) => Promise<T>;
  /** When the value expires, in ms since the epoch; `undefined` for never (long-term keys). */
  expiresAt: (value: T) => number | undefined;
  /** How long before expiry the value is replaced, in ms. */
  marginMs: number;
  /** The clock, in ms since the epoch (tests pass a fake one). @defaultValue `Date.now` */
  now?: (() => number) | undefined;
}

/**
 * Returns a getter: the cached value while `now() < expiresAt - marginMs`, else a fresh one.
 * @throws whatever `fetch` throws (nothing is cached then)
 */
export function refreshingValue<T>(options: RefreshingValueOptions<T>): () => Promise<T> {
  const now = options.now ?? Date.now;
  let cached: { value: T; refreshAt: number } | undefined;
  let pending: Promise<T> | undefined;
  return () => {
    if (cached && now() < cached.refreshAt) return Promise.resolve(cached.value);
    pending ??= options
      .fetch(cached !== undefined)
      .then((value) => {
        const expiresAt = options.expiresAt(value);
        cached = { value, refreshAt: expiresAt === undefined ? Infinity : expiresAt - options.marginMs };
        return value;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
