/**
 * What an Ollama `POST /api/show` answer says about a model, and the window that would keep it in
 * GPU memory. Pure.
 *
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information,
 * api/types.go `ShowResponse` (`model_info` holds the GGUF metadata: `<arch>.context_length`,
 * `<arch>.block_count`, `<arch>.attention.head_count`, `.head_count_kv`, `.key_length`,
 * `.value_length`, `<arch>.embedding_length`; `capabilities` such as `completion`, `tools`,
 * `thinking`, `vision`).
 */
import { isRecord } from '../shared/json-value.js';

/** The facts read from `/api/show`. */
export interface ShowFacts {
  /** The trained window, tokens (`model_info["<arch>.context_length"]`). */
  trained?: number | undefined;
  /** `capabilities`, when the server lists them (older versions do not). */
  capabilities?: readonly string[] | undefined;
  /**
   * Bytes of KV cache one token of window costs, estimated at Ollama's default f16 cache:
   * 2 (K and V) × layers × KV heads × head size × 2 bytes. `undefined` when the metadata lacks a figure.
   */
  kvBytesPerToken?: number | undefined;
}

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

/** The {@link ShowFacts} of an `/api/show` body; `undefined` when it is not an object. */
export function parseShowFacts(body: unknown): ShowFacts | undefined {
  if (!isRecord(body)) return undefined;
  const info = isRecord(body['model_info']) ? body['model_info'] : {};
  const arch =
    typeof info['general.architecture'] === 'string'
      ? info['general.architecture']
      : Object.keys(info)
          .find((key) => key.endsWith('.context_length'))
          ?.slice(0, -'.context_length'.length);
  const read = (key: string) => (arch ? positive(info[`${arch}.${key}`]) : undefined);
  const facts: ShowFacts = {};
  const trained = read('context_length');
  if (trained !== undefined && Number.isSafeInteger(trained)) facts.trained = trained;
  if (Array.isArray(body['capabilities'])) facts.capabilities = body['capabilities'].filter((item): item is string => typeof item === 'string');
  const layers = read('block_count');
  const heads = read('attention.head_count');
  const kvHeads = read('attention.head_count_kv') ?? heads;
  const embedding = read('embedding_length');
  const keySize = read('attention.key_length') ?? (embedding && heads ? embedding / heads : undefined);
  const valueSize = read('attention.value_length') ?? keySize;
  if (layers && kvHeads && keySize && valueSize) facts.kvBytesPerToken = layers * kvHeads * (keySize + valueSize) * 2;
  return facts;
}

/** Smallest window worth suggesting, tokens. */
const MIN_SUGGESTED = 2048;

/**
 * A smaller `num_ctx` for a model `excessBytes` of which do not fit in GPU memory at `numCtx`:
 * the largest power of two whose KV cache is smaller by at least the excess (`fits`), else (the
 * cost per token unknown, or the weights alone too large) half of `numCtx`, at least 2048.
 */
export function suggestNumCtx(numCtx: number, excessBytes: number, kvBytesPerToken: number | undefined): { numCtx: number; fits: boolean } {
  if (kvBytesPerToken) {
    const limit = numCtx - Math.ceil(excessBytes / kvBytesPerToken);
    if (limit >= MIN_SUGGESTED) {
      let power = MIN_SUGGESTED;
      while (power * 2 <= limit) power *= 2;
      return { numCtx: power, fits: true };
    }
  }
  return { numCtx: Math.max(MIN_SUGGESTED, 2 ** Math.floor(Math.log2(Math.max(1, numCtx / 2)))), fits: false };
}
