/**
 * What the chat client needs to speak a server's own chat API instead of Chat Completions: a
 * router, given by the endpoint, that decides per model whether and where (see
 * `endpoints/ollama-native.ts`), and the pure rules that read its failures.
 */
import { ProviderHttpError } from './errors.js';
import type { ThinkStyle } from './ollama-chat-request.js';

/** Where and how one model's request goes on the native API. */
export interface NativeChatTarget {
  /** The chat URL, e.g. `http://127.0.0.1:11434/api/chat`. */
  url: string;
  /** `options.num_ctx` to send, in tokens; `undefined`: the server's own window. */
  numCtx: number | undefined;
  /** How the model takes `think`. */
  think: ThinkStyle;
}

/** Decides, per model, whether the native API is used; learns when it is not served. */
export interface NativeChatRouter {
  /**
   * The target for `model`, or `undefined` to use Chat Completions (the setting is 0, or the
   * native API was found not served). May ask the server about the model first (bounded). Never rejects.
   */
  target(model: string): Promise<NativeChatTarget | undefined>;
  /** The native API answered "not here" (see {@link isNotServed}): use Chat Completions from now on (the router remembers it for the agent). */
  fallBack(reason: string): void;
  /** A native answer for `model` completed, having waited `loadMs` for the model to load (Ollama's `load_duration`) when it said. */
  answered(model: string, loadMs?: number): void;
}

/**
 * Whether an HTTP failure of the native chat URL means the API is not served there (a gateway or
 * proxy that exposes only `/v1`): 404, 405 or 501 with a body that is not Ollama's own error
 * object `{"error":"…"}` (Ollama answers 404 `{"error":"model \"x\" not found, try pulling it
 * first"}` for a missing model, and `404 page not found` as text for an unknown path).
 */
export function isNotServed(error: unknown): boolean {
  if (!(error instanceof ProviderHttpError) || ![404, 405, 501].includes(error.status)) return false;
  try {
    const body: unknown = JSON.parse(error.body);
    return !(typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>)['error'] === 'string');
  } catch {
    return true;
  }
}

/**
 * Ollama's words for a model that does not fit in memory at the window asked for: "model
 * requires more system memory (…) than is available (…)", and the runner's out-of-memory texts
 * (llm/status.go `outOfMemorySubstrings`, llm/server.go `ErrLoadRequiredFull`).
 */
const OUT_OF_MEMORY = new RegExp(
  [
    'requires more system memory',
    'out of (device )?memory',
    'insufficient memory',
    'not enough memory',
    'failed to allocate',
    'allocation failed',
    'cuda(Malloc)? failed',
    'unable to load full model',
  ].join('|'),
  'i',
);

/** Whether a provider message says the model does not fit in memory. */
export function isOutOfMemory(message: string | undefined): boolean {
  return message !== undefined && OUT_OF_MEMORY.test(message);
}

/**
 * The native API refused to load the model at the window asked for, for want of memory. Final:
 * asking again at the same window gets the same answer.
 */
export class ProviderMemoryError extends ProviderHttpError {
  override readonly retryable = false;
  constructor(
    from: ProviderHttpError,
    /** The model asked for. */
    readonly model: string,
    /** The window asked for, in tokens (`undefined`: the server's own). */
    readonly numCtx: number | undefined,
  ) {
    super(from.status, from.headers, from.body, from.url);
  }
}
