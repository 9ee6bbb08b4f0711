/**
 * Which context window a request is planned for, from everything that may say one. Pure.
 *
 * Precedence, highest first (documented in docs/context-window.md):
 * 1. `learned`, when smaller than `configured`: the server rejected a request as over its window
 *    (`learned-windows.ts`: the window its answer stated, or the size that then worked when it
 *    stated none), so a larger `OPENAI_CONTEXT_WINDOW` would only be rejected again;
 * 2. `configured`: `OPENAI_CONTEXT_WINDOW`, the user's word;
 * 3. `learned` otherwise;
 * 4. `runtime`: what the server reports it runs the model with (Ollama `/api/ps`, LM Studio
 *    `loaded_context_length`, llama.cpp `/props` n_ctx; `server-context.ts`), or Ollama's default
 *    assumed when it does not say;
 * 5. `catalogue`: the `/models` list's window (vLLM `max_model_len`, OpenRouter `context_length`,
 *    LM Studio, llama.cpp `n_ctx_train`, …);
 * 6. `trained`: the window the model was trained for (Ollama `/api/show`, LM Studio
 *    `max_context_length`), an upper bound of what any server runs.
 */

/** Below this window (tokens), coding work does not fit well: the user is told, with the server's fix. */
export const SMALL_WINDOW_TOKENS = 16_384;

/** Where a window came from. */
type WindowSource = 'configured' | 'learned' | 'runtime' | 'catalogue' | 'trained';

/** Every window that may be known for a model, in tokens; absent when that source says nothing. */
export type WindowSources = Partial<Record<WindowSource, number | undefined>>;

/** The window to plan for and where it came from. */
export interface ResolvedWindow {
  /** Tokens. */
  window: number;
  source: WindowSource;
  /** The configured window (tokens) a smaller learned one overrules; absent otherwise. */
  overrules?: number;
}

/**
 * The sources in order of precedence.
 * @internal the tests walk the precedence in the order it is written.
 */
export const WINDOW_PRECEDENCE: readonly WindowSource[] = ['configured', 'learned', 'runtime', 'catalogue', 'trained'];

const valid = (window: number | undefined): window is number => typeof window === 'number' && Number.isSafeInteger(window) && window > 0;

/**
 * A learned window smaller than the configured one (with `overrules` set), else the first source
 * of {@link WINDOW_PRECEDENCE} holding a positive integer; `undefined` when none does.
 */
export function resolveContextWindow(sources: WindowSources): ResolvedWindow | undefined {
  const { configured, learned } = sources;
  if (valid(configured) && valid(learned) && learned < configured) return { window: learned, source: 'learned', overrules: configured };
  for (const source of WINDOW_PRECEDENCE) {
    const window = sources[source];
    if (typeof window === 'number' && Number.isSafeInteger(window) && window > 0) return { window, source };
  }
  return undefined;
}
