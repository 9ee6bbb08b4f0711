/**
 * Retry timing: how long to wait before the next attempt, and an abortable wait.
 *
 * Source: openai-node's retry policy — `retry-after-ms` (ms), then `retry-after` (seconds or an
 * HTTP date), else exponential backoff `min(0.5 * 2^attempt, 8)` s with up to 25 % jitter.
 */

/**
 * Initial backoff delay, in ms.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const INITIAL_RETRY_DELAY_MS = 500;
/**
 * Longest backoff delay, in ms.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const MAX_RETRY_DELAY_MS = 8_000;
/**
 * Longest server-requested delay we honour, in ms; beyond this we use our own backoff.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const MAX_SERVER_DELAY_MS = 60_000;

/**
 * Delay before retry number `attempt` (0 for the first retry), in ms.
 *
 * @param attempt - retries already made, >= 0
 * @param headers - the failed response's headers, if there was a response
 * @param random - a number in [0, 1) for jitter; injectable for tests
 * @returns a delay in [0, MAX_SERVER_DELAY_MS] when the server asked for one, else in
 *   [0.75 * base, base] where base = min(INITIAL_RETRY_DELAY_MS * 2^attempt, MAX_RETRY_DELAY_MS)
 */
export function retryDelayMs(
  attempt: number,
  headers?: { get(name: string): string | null } | undefined,
  random: number = Math.random(),
  now: number = Date.now(),
): number {
  const requested = serverRequestedDelayMs(headers, now);
  if (requested !== undefined && requested >= 0 && requested <= MAX_SERVER_DELAY_MS) return requested;
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** Math.max(0, attempt), MAX_RETRY_DELAY_MS);
  const jitter = 1 - Math.min(Math.max(random, 0), 1) * 0.25;
  return base * jitter;
}

/**
 * The delay a response asks for through `retry-after-ms` or `retry-after`, in ms, if any.
 * @internal a pure reader (fast-check properties) of Retry-After headers.
 */
export function serverRequestedDelayMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value)) return Math.max(0, value);
  }
  const after = headers.get('retry-after');
  if (after !== null && after.trim() !== '') {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

/**
 * Wait `ms` milliseconds unless `signal` aborts first.
 * @throws the signal's reason (an `AbortError` `DOMException` by default) when aborted.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
