/**
 * Bounds on what is read from an endpoint, so that no answer can exhaust the agent's memory
 * (unbounded, a 100 MB error body peaked at 378 MiB RSS and a 50 MB SSE event at 542 MiB).
 */
import { describeBytes } from '../shared/describe-bytes.js';

/**
 * Most of an error body read, in bytes: 1 MiB. Error bodies are a sentence or a small JSON
 * object; what is past this is not read (the connection is closed) and the text says where it was cut.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/**
 * Most bytes read of a JSON answer that is not a chat stream (a model list, a server's report):
 * 16 MiB, far above OpenRouter's whole catalogue; a larger answer is not one of those.
 */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Longest single SSE event (or non-streaming JSON answer), in bytes: 16 MiB. A chunk carries a
 * few tokens; even a whole long answer in one event is far below this.
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** What the user reads when an endpoint answers with a web page (a UI or a login page at the base URL). */
export const HTML_ANSWER = "the endpoint answered with an HTML page, not a Chat Completions stream: is OPENAI_BASE_URL the API's base (often ending in /v1)?";

/**
 * At most `limit` bytes of a response's body as UTF-8 text (a character cut at the limit becomes
 * U+FFFD), and whether there was more (the connection is then closed, the rest never read).
 * Never throws: a body that breaks off gives what arrived.
 */
export async function readBodyUpTo(response: { readonly body: AsyncIterable<Uint8Array> | null }, limit: number): Promise<{ text: string; cut: boolean }> {
  if (!response.body) return { text: '', cut: false };
  const reader = response.body[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for (;;) {
      const { value, done } = await reader.next();
      if (done) break;
      const room = limit - size;
      if (value.length > room) {
        parts.push(value.subarray(0, room));
        size = limit;
        cut = true;
        break;
      }
      parts.push(value);
      size += value.length;
    }
  } catch {
    // What arrived is kept.
  } finally {
    // Closes the connection (a web stream is cancelled); a body read to its end or failed needs nothing.
    if (cut) void reader.return?.()?.catch(() => undefined);
  }
  return { text: Buffer.concat(parts, size).toString('utf8'), cut };
}

/**
 * The text of an error response's body, at most `limit` bytes of it (see {@link readBodyUpTo}),
 * followed by `… (cut at 1 MiB)` when there was more. Never throws: a body that breaks off gives
 * what arrived (the status alone still explains the failure).
 */
export async function readErrorBody(response: { readonly body: AsyncIterable<Uint8Array> | null }, limit = MAX_ERROR_BODY_BYTES): Promise<string> {
  const { text, cut } = await readBodyUpTo(response, limit);
  return cut ? `${text}… (cut at ${describeBytes(limit)})` : text;
}
