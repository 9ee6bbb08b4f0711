/**
 * `doctor`'s line saying whether the server had the model in memory when the checks began (read
 * before the test completion, which loads it): Ollama `/api/ps`, llama.cpp `/health`, LM Studio
 * `/api/v0/models` (`endpoints/model-loading.ts`). A model not loaded makes the first prompt wait
 * while the server loads it; the agent says so when that happens.
 */
import type { ModelLoadState } from '../endpoints/model-loading.js';

/** The row for one endpoint, indented like the configuration rows; `[]` when the server was not asked. */
export function loadedRows(state: ModelLoadState | undefined, asked: boolean): string[] {
  if (!asked) return [];
  const value = !state
    ? 'unknown: the server did not say'
    : state.loaded
      ? `yes (${state.said})`
      : `not when the checks began (${state.said}): the first prompt waits while the server loads it, and the agent says so`;
  return [`    ${'model loaded'.padEnd(16)}${value}`];
}
