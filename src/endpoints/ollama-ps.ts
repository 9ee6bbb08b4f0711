/**
 * Reading Ollama's `GET /api/ps` (the models loaded in memory): the context window the server
 * really runs a model with, and how much of it sits in VRAM.
 *
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md#list-running-models —
 * `{models: [{name, model, size, size_vram, context_length, expires_at, details, …}]}`;
 * `context_length` (Ollama ≥ 0.12) is the window allocated at load, which differs from the
 * trained window `/api/show` reports (docs/context-length.mdx: 4k below 24 GiB of VRAM, 32k up
 * to 48 GiB, 256k above, unless `OLLAMA_CONTEXT_LENGTH` or a Modelfile's `num_ctx` says otherwise).
 */
import { isRecord, positiveInt } from '../shared/json-value.js';

/** One loaded model as `/api/ps` describes it. */
export interface OllamaLoadedModel {
  /** The context window it was loaded with, in tokens. */
  contextLength?: number;
  /** Memory it takes in all, in bytes. */
  size?: number;
  /** The part of `size` in VRAM, in bytes (`size_vram / size` below 1: partly on the CPU). */
  sizeVram?: number;
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);
/** `qwen3` and `qwen3:latest` name the same model. */
const withTag = (name: string): string => (/:[^/]+$/.test(name) ? name : `${name}:latest`);

/**
 * The entry of `model` in an `/api/ps` answer (matched by `name` or `model`, `:latest` implied
 * when no tag is given), or `undefined` when the model is not loaded or the body is not that
 * shape. Fields the entry lacks (older Ollama has no `context_length`) are absent. Never throws.
 */
export function parseOllamaPs(body: unknown, model: string): OllamaLoadedModel | undefined {
  if (!isRecord(body) || !Array.isArray(body['models'])) return undefined;
  const wanted = withTag(model.trim());
  for (const entry of body['models']) {
    if (!isRecord(entry)) continue;
    const names = [entry['name'], entry['model']].filter((name): name is string => typeof name === 'string').map(withTag);
    if (!names.includes(wanted)) continue;
    const loaded: OllamaLoadedModel = {};
    const contextLength = positiveInt(entry['context_length']);
    if (contextLength !== undefined) loaded.contextLength = contextLength;
    const size = count(entry['size']);
    if (size !== undefined) loaded.size = size;
    const sizeVram = count(entry['size_vram']);
    if (sizeVram !== undefined) loaded.sizeVram = sizeVram;
    return loaded;
  }
  return undefined;
}
