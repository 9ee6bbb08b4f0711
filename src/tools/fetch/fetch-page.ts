/**
 * The `fetch_url` tool: GET an `http(s)` URL (`http-get.ts`: redirects, forbidden addresses,
 * proxy, time limit, byte caps) and give the model its text: HTML made Markdown
 * (`html-markdown.lazy.ts`, loaded at the first page), JSON and other text as they are; the
 * model's copy cut to a size tied to the context window, with a note saying so. Every failure
 * (bad URL, forbidden address, unreachable host, HTTP error, wrong type, timeout) is a failed
 * result in plain words; a cancelled turn rejects with the signal's reason.
 */
import { prefixEnd } from '../present/output-cap.js';
import { textContent } from '../present/present-args.js';
import type { ToolOutcome } from '../tool.js';
import type { AddressPolicy, LookupFunction } from './address-guard.js';
import { httpGet, type TextKind } from './http-get.js';
import { grouped } from '../../shared/grouped.js';

/** Default limit of one fetch, redirects and body included, in ms: 30 s. */
const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Most HTML bytes read before conversion (the rest of a page is not read): 2 MiB. */
const MAX_HTML_BYTES = 2 * 1024 * 1024;
/** Most bytes of JSON or text read: 1 MiB. */
const MAX_TEXT_BYTES = 1024 * 1024;
/** Most bytes of the text given to the model when the context window is unknown: 50,000. */
const DEFAULT_FETCH_MODEL_BYTES = 50_000;
/** Redirects followed at most. */
const MAX_REDIRECTS = 5;

/** How a fetch is limited; tests inject a resolver. */
export interface FetchLimits {
  /** @defaultValue {@link DEFAULT_FETCH_TIMEOUT_MS} */
  timeoutMs?: number;
  /** Most UTF-8 bytes given to the model. @defaultValue {@link DEFAULT_FETCH_MODEL_BYTES} */
  modelBytes?: number;
  /** DNS resolution (its answers are still checked). @defaultValue `dns.lookup` */
  lookup?: LookupFunction;
  /** Whether a redirect may go on to another host without asking (see `GetOptions.mayFollow`). @defaultValue every redirect is followed */
  mayFollow?: (url: URL) => boolean;
  /** Which private addresses may be fetched (`openai-acp serve --allow-private-urls`). @defaultValue every one */
  policy?: AddressPolicy | undefined;
}

/**
 * The model's share of one fetched page for a context window: a quarter of the window at ~4 bytes
 * per token, at most {@link DEFAULT_FETCH_MODEL_BYTES}, at least 4,000 bytes; the default when
 * the window is unknown. (The context planner may take this over.)
 */
export function fetchModelBytes(contextWindow: number | undefined): number {
  if (!contextWindow) return DEFAULT_FETCH_MODEL_BYTES;
  return Math.max(4_000, Math.min(DEFAULT_FETCH_MODEL_BYTES, Math.floor(contextWindow / 4) * 4));
}

/** Runs `fetch_url` for `url`. */
export async function executeFetchUrl(url: string, signal: AbortSignal, limits: FetchLimits = {}): Promise<ToolOutcome> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const result = await httpGet(url.trim(), {
    signal,
    timeoutMs,
    maxRedirects: MAX_REDIRECTS,
    maxBytes: (kind) => (kind === 'html' ? MAX_HTML_BYTES : MAX_TEXT_BYTES),
    ...(limits.lookup ? { lookup: limits.lookup } : {}),
    ...(limits.mayFollow ? { mayFollow: limits.mayFollow } : {}),
    ...(limits.policy ? { policy: limits.policy } : {}),
  });
  if (!result.ok) {
    const message = `Could not fetch ${result.url}: ${result.reason}.`;
    return {
      failed: true,
      forModel: message,
      content: [textContent(message)],
      rawOutput: { url: result.url, ...(result.status ? { status: result.status } : {}), error: result.reason },
    };
  }
  const text = result.body.toString('utf8');
  const body = result.kind === 'html' ? (await import('./html-markdown.lazy.js')).htmlToMarkdown(text, result.url) : text;
  signal.throwIfAborted();
  const notes: string[] = [];
  if (result.truncated) notes.push(`only the first ${kib(result.kind === 'html' ? MAX_HTML_BYTES : MAX_TEXT_BYTES)} of the page were read`);
  const forModel = capPage(body, limits.modelBytes ?? DEFAULT_FETCH_MODEL_BYTES, notes);
  const head = `${result.url} (HTTP ${result.status}, ${describeKind(result.kind, result.contentType)})`;
  return {
    failed: false,
    forModel: `${head}\n\n${forModel}`,
    content: [textContent(`${head}\n\n${body}${result.truncated ? `\n\n[${notes[0]}]` : ''}`)],
    rawOutput: { url: result.url, status: result.status, contentType: result.contentType, bytes: result.body.length, truncated: result.truncated },
  };
}

/** `text/html, as Markdown`, `application/json` … */
function describeKind(kind: TextKind, contentType: string): string {
  const type = contentType.split(';')[0]!.trim() || 'no content type';
  return kind === 'html' ? `${type}, as Markdown` : type;
}

const kib = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);

/**
 * The first `maxBytes` of `text`, cut at a line end when one is near (else at a character), with
 * a note that says how much was left out; `notes` (e.g. "only the first 2 MiB were read") join it.
 * @internal the model's share of a page is checked without a server.
 */
export function capPage(text: string, maxBytes: number, notes: readonly string[] = []): string {
  const total = Buffer.byteLength(text);
  if (total <= maxBytes) return notes.length > 0 ? `${text}\n\n[Note: ${notes.join('; ')}.]` : text;
  let end = prefixEnd(text, maxBytes);
  const newline = text.lastIndexOf('\n', end);
  if (newline > end * 0.8) end = newline;
  const kept = Buffer.byteLength(text.slice(0, end));
  const note = [`cut to the first ${grouped(kept)} of ${grouped(total)} bytes to fit the context window`, ...notes];
  return `${text.slice(0, end).trimEnd()}\n\n[Note: ${note.join('; ')}.]`;
}
