/**
 * The words Ollama's native chat tells the user after an answer: the model had to load again
 * (its prompt cache lost), or it runs partly on the CPU at the window asked for. Pure.
 */
import { grouped } from '../shared/grouped.js';

/** A load this long (ms) in an answer after the model's first is told: the model had been unloaded, and its prompt cache with it. */
export const RELOAD_NOTICE_MS = 1000;

/**
 * The words for an answer that waited `ms` for `model` to load again: Ollama unloads a model idle
 * for `OLLAMA_KEEP_ALIVE` (5 minutes by default) or to make room for another, and its prompt
 * cache goes with it (docs/faq.md "How do I keep a model loaded in memory").
 */
export function reloadNotice(model: string, ms: number): string {
  return (
    `Ollama loaded ${model} again for this answer (${(ms / 1000).toFixed(1)} s, its load_duration): it had been unloaded, ` +
    'so the conversation was read again from the start. OLLAMA_KEEP_ALIVE (5 minutes by default; -1 keeps it loaded) ' +
    'or fewer models at once keep it in memory.'
  );
}

/**
 * The words telling the user that `model` runs partly on the CPU at a `numCtx`-token window:
 * the share off the GPU, the bytes in GPU memory of the whole (`/api/ps` `size_vram` and `size`),
 * and the `suggested` window (`ollama-show.ts` `suggestNumCtx`).
 */
export function cpuNotice(model: string, numCtx: number, running: { size: number; sizeVram: number }, suggested: { numCtx: number; fits: boolean }): string {
  const share = Math.max(1, Math.round(((running.size - running.sizeVram) / running.size) * 100));
  const fix = suggested.fits
    ? `OPENAI_ACP_OLLAMA_NUM_CTX=${suggested.numCtx} should keep it on the GPU`
    : `OPENAI_ACP_OLLAMA_NUM_CTX=${suggested.numCtx} would keep more of it on the GPU`;
  return (
    `${model} runs ${share}% on the CPU with a ${grouped(numCtx)}-token window ` +
    `(${gib(running.sizeVram)} of ${gib(running.size)} in GPU memory), which makes every step slower; ${fix}, with ` +
    'less room for the conversation.'
  );
}

/** Bytes as GiB with one decimal, e.g. `7.5 GiB`. */
function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
