/**
 * Reading Ollama's `GET /api/ps` (the models loaded now): the window the server runs a model with
 * (`context_length`), and how much of it sits in GPU memory (`size_vram` of `size`, bytes).
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md#list-running-models, api/types.go
 * `ProcessModelResponse`.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown, min: number): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= min ? value : undefined);

/** `name` and `model` as Ollama writes them: `qwen3` is `qwen3:latest`. */
const withTag = (name: string) => (name.includes(':') ? name : `${name}:latest`);

/**
 * The entry of `model` in an `/api/ps` answer (matched by `name` or `model`, `:latest` implied):
 * `contextLength` (tokens, when positive), `size` and `sizeVram` (bytes). `undefined` when the
 * model is not loaded or the answer is not one.
 */
export function parseOllamaPs(body: unknown, model: string): { contextLength?: number; size?: number; sizeVram?: number } | undefined {
  if (!isRecord(body) || !Array.isArray(body['models'])) return undefined;
  const wanted = withTag(model);
  const entry = body['models'].find((item) => isRecord(item) && [item['name'], item['model']].some((name) => typeof name === 'string' && withTag(name) === wanted));
  if (!isRecord(entry)) return undefined;
  const out: { contextLength?: number; size?: number; sizeVram?: number } = {};
  const contextLength = count(entry['context_length'], 1);
  const size = count(entry['size'], 0);
  const sizeVram = count(entry['size_vram'], 0);
  if (contextLength !== undefined) out.contextLength = contextLength;
  if (size !== undefined) out.size = size;
  if (sizeVram !== undefined) out.sizeVram = sizeVram;
  return out;
}
