/**
 * Keys written twice in one object of strict JSON text. `JSON.parse` keeps the last value, which
 * is a guess when the two differ (`{"path": "a", "path": "b"}`): such arguments are refused,
 * naming both values. A key written twice with the same value says one thing and is read once.
 * Also the one salvage a duplicate allows: a key written a second time with the same value but
 * broken (`{"filePath": "/a.ts", "filePath": "/a.ts}`), where the first, complete pair already
 * says all the object says. Pure; one pass over the text.
 *
 * Source: RFC 8259 §4 ("The names within an object SHOULD be unique"; with duplicates
 * "the behavior of software that receives such an object is unpredictable").
 */
import { isDeepStrictEqual } from 'node:util';

/**
 * Why a call that gives the argument `key` a second time cannot run, when the two values differ
 * (which one is meant is a guess); `undefined` when `key` is new or says the same again. The
 * readers of calls written as text (XML parameters, Python keywords, DSML) word it so.
 */
export function repeatedProblem(args: Readonly<Record<string, unknown>>, key: string, value: unknown): string | undefined {
  if (!Object.hasOwn(args, key) || isDeepStrictEqual(args[key], value)) return undefined;
  return `the argument "${key}" is given twice, as ${JSON.stringify(args[key])} and as ${JSON.stringify(value)}; give it once, with the value meant`;
}

/** A key written twice with different values: the key and both values as written. */
interface DuplicateKey {
  key: string;
  first: string;
  second: string;
}

/** One open object or array of the scan: its keys with their values' raw text, and where the current value began. */
interface Frame {
  object: boolean;
  keys: Map<string, string>;
  key?: string;
  valueStart: number;
}

/** Where the JSON string at `start` (its opening quote) ends (the index after its quote), or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

/**
 * The first key written twice with different values in any object of the strict JSON `json`, or
 * `undefined`. Values are compared by meaning (`1` and `1.0`, key order in objects aside they are
 * compared as written after whitespace is taken out of the structure).
 */
export function differingDuplicate(json: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  const close = (frame: Frame | undefined, end: number): DuplicateKey | undefined => {
    if (!frame?.object || frame.key === undefined) return undefined;
    const raw = json.slice(frame.valueStart, end).trim();
    const known = frame.keys.get(frame.key);
    if (known !== undefined && canonical(known) !== canonical(raw)) return { key: frame.key, first: known, second: raw };
    frame.keys.set(frame.key, raw);
    frame.key = undefined;
    return undefined;
  };
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      const end = stringEnd(json, i);
      if (end < 0) return undefined;
      const top = stack.at(-1);
      // A string where a key may stand (in an object, no key pending): the next key.
      if (top?.object && top.key === undefined) {
        top.key = JSON.parse(json.slice(i, end)) as string;
        const colon = json.indexOf(':', end);
        if (colon < 0) return undefined;
        top.valueStart = colon + 1;
        i = colon;
      } else i = end - 1;
    } else if (c === '{' || c === '[') stack.push({ object: c === '{', keys: new Map(), valueStart: i + 1 });
    else if (c === '}' || c === ']') {
      const found = close(stack.pop(), i);
      if (found) return found;
    } else if (c === ',') {
      const found = close(stack.at(-1), i);
      if (found) return found;
    }
  }
  return undefined;
}

/** A value's text compared by meaning: parsed and written again, keys sorted (so `1.0` is `1`, and spacing and key order go). */
function canonical(raw: string): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  try {
    return JSON.stringify(sorted(JSON.parse(raw)));
  } catch {
    return raw;
  }
}

/**
 * The arguments object `raw` says when it is cut or broken only in a second writing of a key the
 * object already has complete, with the same value: `{"k": "v", "k": "v` → `{"k": "v"}`. Only the
 * top level, only when what follows the second key is that same value, with at most its closing
 * quote and brace (and whitespace) missing or added. `undefined` otherwise.
 */
export function brokenRepeat(raw: string): { json: string; key: string } | undefined {
  const text = raw.trim();
  if (!text.startsWith('{')) return undefined;
  // The complete pairs before the repeat, as strict JSON: cut at each `, "key":` and try.
  const pair = /,\s*"((?:[^"\\]|\\.)*)"\s*:\s*/g;
  for (let match = pair.exec(text); match; match = pair.exec(text)) {
    const head = `${text.slice(0, match.index)}}`;
    let value: unknown;
    try {
      value = JSON.parse(head);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    let key: string;
    try {
      key = JSON.parse(`"${match[1]}"`) as string;
    } catch {
      return undefined;
    }
    if (!Object.hasOwn(value, key)) return undefined;
    const known = JSON.stringify((value as Record<string, unknown>)[key]);
    const rest = text.slice(match.index + match[0].length).replace(/[\s}]+$/, '');
    // The same value, or the same string with its closing quote missing.
    const same = rest === known || (known.startsWith('"') && `${rest}"` === known);
    return same ? { json: head, key } : undefined;
  }
  return undefined;
}
