/**
 * Parsers of single setting values, pure: each takes the raw (trimmed, non-empty) text and gives
 * the value or a {@link InvalidValue} that says what is wrong without echoing a secret.
 */
import { z } from 'zod';

/** Accepted forms shared by several settings. */
export const ACCEPTED = {
  url: 'an http:// or https:// URL such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1',
  tokens: 'a whole number of tokens greater than 0',
  headers: 'a JSON object of header names to string values, e.g. {"api-key":"..."}',
  ollamaNumCtx: "a whole number of tokens, 0 or more (0 keeps the server's own window and its OpenAI-compatible API)",
};
/** Largest `OPENAI_ACP_OLLAMA_NUM_CTX` accepted, in tokens (2^24, well above any trained window). */
export const MAX_NUM_CTX = 16_777_216;
/** Largest delay Node's timers accept (ms); larger values would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters that cannot be sent in an HTTP header value (controls, and beyond Latin-1). */
export const NOT_SENDABLE = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const headerValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** One invalid setting: which variable (or flag), what is wrong with it, and what is accepted. */
export interface ConfigProblem {
  /** The environment variable (`OPENAI_TEMPERATURE`) or flag (`--base-url`) holding the value. */
  variable: string;
  /** What is wrong, e.g. `"hot" is not a number`. Never contains a secret value. */
  problem: string;
  /** The accepted form, e.g. `a number from 0 to 2`. */
  accepted: string;
}

/** Why a value was rejected, kept apart from parsed values (which may be strings too). */
export class InvalidValue {
  constructor(readonly text: string) {}
}
/** The {@link InvalidValue} saying `text`, e.g. `invalid('is not a number')`. */
export const invalid = (text: string) => new InvalidValue(text);
export const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value);

/** A base URL for messages: nothing when it may carry credentials, and never its query. */
function showUrl(value: string): string {
  if (value.includes('@')) return 'the value';
  const cut = value.split(/[?#]/)[0] ?? '';
  return quote(cut === value ? value : `${cut}?…`);
}

/** Parses a whole number in `[min, max]`: the number, or the problem. */
export function parseInteger(raw: string, min: number, max: number): number | InvalidValue {
  if (!/^[+-]?\d+(\.0*)?$/.test(raw)) return invalid(`${quote(raw)} is not ${FLOAT.test(raw) ? 'a whole number' : 'a number'}`);
  const n = Number(raw) + 0;
  if (n < min) return invalid(`${quote(raw)} is less than ${min}`);
  return n > max ? invalid(`${quote(raw)} is more than ${max}`) : n;
}

export function parseTemperature(raw: string): number | InvalidValue {
  if (!FLOAT.test(raw)) return invalid(`${quote(raw)} is not a number`);
  const n = Number(raw) + 0;
  if (n < 0) return invalid(`${quote(raw)} is negative`);
  return n <= 2 ? n : invalid(`${quote(raw)} is more than 2`);
}

/** Why `query` is not a usable query string, without echoing it; `undefined` when it is fine. */
export function queryProblem(query: string): string | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(query)) return 'contains spaces or control characters';
  if (query.includes('#')) return 'contains "#"';
  if (/%(?![0-9a-f]{2})/i.test(query)) return 'contains a "%" that is not followed by two hex digits';
  return undefined;
}

/** Normalizes a base URL: the base without query, and its query; or the problem. */
export function parseBaseUrl(raw: string): { baseUrl: string; query: string | undefined } | InvalidValue {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid(`${showUrl(raw)} is not a URL${raw.includes('://') ? '' : ' (http:// or https:// is missing)'}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid(`${showUrl(raw)} is not an http:// or https:// URL`);
  if (url.username || url.password) return invalid('contains a user name or password; put the key in OPENAI_API_KEY or OPENAI_HEADERS instead');
  if (raw.includes('#')) return invalid(`${showUrl(raw)} contains a #fragment, which is never sent`);
  const query = url.search.slice(1);
  const bad = queryProblem(query);
  if (bad) return invalid(`its query string ${bad}`);
  let path = url.pathname;
  for (let next = ''; next !== path; ) {
    next = path;
    path = path.replace(/\/+$/, '').replace(/\/chat\/completions$/i, '');
  }
  return { baseUrl: `${url.protocol}//${url.host}${path}`, query: query || undefined };
}

/** Parses OPENAI_MODELS: a JSON array of strings or a comma list; trimmed, deduplicated, empty entries dropped. */
export function parseModelList(raw: string): string[] | undefined | InvalidValue {
  let ids: string[];
  if (raw.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return invalid('is not a valid JSON array (ids need "double quotes")');
    }
    if (!Array.isArray(parsed) || !parsed.every((id) => typeof id === 'string')) return invalid('is not a JSON array of strings');
    ids = parsed;
  } else ids = raw.split(',');
  const unique = [...new Set(ids.map((id) => id.trim()).filter(Boolean))];
  return unique.length > 0 ? unique : undefined;
}

/** Parses OPENAI_HEADERS: the valid headers, and problems that name headers but never show values. */
export function parseHeaders(raw: string): { headers: Record<string, string>; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { headers: {}, problems: ['is not valid JSON (names and values need "double quotes")'] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { headers: {}, problems: ['is not a JSON object'] };
  const entries: [string, string][] = [];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    const result = headerValue.safeParse(value);
    if (!HEADER_NAME.test(name)) problems.push('has a name that is not a valid HTTP header name');
    else if (!result.success)
      problems.push(`header ${quote(name)} must be a string, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object'}`);
    else if (NOT_SENDABLE.test(result.data)) problems.push(`header ${quote(name)} contains characters that cannot be sent in an HTTP header`);
    else entries.push([name, result.data.trim()]);
  }
  return { headers: Object.fromEntries(entries), problems };
}

/**
 * A list of environment variable names or `*` patterns (`OPENAI_ACP_TOOL_ENV_KEEP`, `_DROP`),
 * separated by commas or white space.
 */
export function parseNameList(raw: string): string[] | InvalidValue {
  const names = raw.split(/[\s,]+/).filter((entry) => entry !== '');
  const bad = names.find((entry) => !/^[A-Za-z0-9_.*-]+$/.test(entry));
  return bad === undefined ? names : invalid(`${quote(bad)} is not a variable name or * pattern`);
}
