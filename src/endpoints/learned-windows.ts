/**
 * Context windows learned from overflow answers ("This model's maximum context length is 8192
 * tokens…", see `openai/context-overflow.ts`), remembered per endpoint and model for the life of
 * the agent (`learned-facts.ts`): the next request to that model is planned for the window the server stated, even
 * when the catalogue or the server's own report said otherwise.
 */

/** Windows by endpoint and model; the newest answer wins (a server restarted with another window says so again). */
export class LearnedWindows {
  private readonly windows = new Map<string, number>();

  /** Remembers `window` (tokens) for `model` at `endpoint` (its chat URL). Ignores a window that is not a positive integer. */
  learn(endpoint: string, model: string, window: number): void {
    if (Number.isSafeInteger(window) && window > 0) this.windows.set(key(endpoint, model), window);
  }

  /** The window learned for `model` at `endpoint`, in tokens, if any. */
  get(endpoint: string, model: string): number | undefined {
    return this.windows.get(key(endpoint, model));
  }
}

const key = (endpoint: string, model: string) => `${endpoint}\n${model}`;
