/**
 * Reading JSON of unknown shape (provider answers, server reports, session files, config files):
 * whether a value is a plain object, and a text parsed without throwing.
 */

/** True for a plain JSON object: not `null`, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a whole number above 0 (as a JSON answer states a size or a count), else `undefined`. */
export function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** `text` parsed as JSON, or `undefined` when it is not JSON (never throws). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
