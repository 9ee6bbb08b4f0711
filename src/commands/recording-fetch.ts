/**
 * A transport wrapper that remembers what each request got (status, error body, connection
 * failure), so `doctor`, `models` and `setup` can explain a failure that the shared request path
 * (`createEndpoint`) deliberately hides from the agent (the model catalog never fails).
 */
import { errorCode } from '../openai/chat-attempt.js';
import { defaultFetch, type FetchLike } from '../openai/http.js';

/** Longest body text kept per record, in characters. */
const MAX_BODY = 65_536;

/** What one request got. Exactly one of `status` and `failure` is set once it settled. */
export interface HttpRecord {
  method: string;
  url: string;
  /** The request body when it was a string (the JSON of a chat request), else absent. */
  sent?: string;
  /** HTTP status of the answer. */
  status?: number;
  /** The answer's body text (first 64 KiB) for GET requests and error answers; read in the background. */
  body?: Promise<string>;
  /** Why no answer came: the signal aborted (`timeout`), or the connection failed (`connection`, with its system `code`). */
  failure?: { kind: 'timeout' | 'connection'; code?: string | undefined; message: string };
}

/** The wrapped transport and what it recorded, in request order. */
export interface RecordingFetch {
  fetch: FetchLike;
  records: HttpRecord[];
}

/**
 * Wraps `inner` (default: the agent's own transport) so that every request is recorded. The
 * response handed back is untouched (a clone is read for GET requests and error answers).
 */
export function recordingFetch(inner?: FetchLike | undefined): RecordingFetch {
  const records: HttpRecord[] = [];
  const fetch: FetchLike = async (url, init) => {
    const record: HttpRecord = { method: (init.method ?? 'GET').toUpperCase(), url };
    if (typeof init.body === 'string') record.sent = init.body;
    else if (init.body instanceof Uint8Array) record.sent = Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength).toString('utf8');
    records.push(record);
    try {
      const transport = inner ?? (await defaultFetch());
      const response = await transport(url, init);
      record.status = response.status;
      if (record.method === 'GET' || !response.ok) {
        record.body = response
          .clone()
          .text()
          .then((text) => text.slice(0, MAX_BODY))
          .catch(() => '');
      }
      return response;
    } catch (error) {
      const aborted = init.signal?.aborted === true;
      record.failure = {
        kind: aborted ? 'timeout' : 'connection',
        code: aborted ? undefined : errorCode(error),
        message: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
      };
      throw error;
    }
  };
  return { fetch, records };
}
