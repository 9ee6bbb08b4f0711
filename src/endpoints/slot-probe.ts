/**
 * The first look at a llama.cpp server's slots, before any session is given one: does an idle
 * slot keep its cache, and can slots be saved to files? The server says neither (`/props` and
 * `/slots` name the slots only), so it is asked by doing: a short prompt in the highest slot, one
 * in the next, the first again (`POST /completion` with `id_slot`, `n_predict: 0`,
 * `cache_prompt: true`); its `timings.cache_n` is the first prompt's length but one on a server
 * that keeps idle slots (`--no-cache-idle-slots`) and 0 on one that clears them (the default
 * with a unified KV cache, b11669: "save idle slots to the prompt cache on new task, and clear
 * them"); then a save of that slot (`POST /slots/{id}?action=save`), which answers 501 without
 * `--slot-save-path`. Measured on llama-server b11669 (the real-llama kit): 27 tokens read each
 * time and `cache_n` 0 on the defaults; `cache_n` 26 with `--no-cache-idle-slots`.
 * Source: llama.cpp tools/server/README.md (`/completion` options, `/slots/{id}?action=save`).
 */

/** What the first look found. */
export interface SlotProbe {
  /** True: an idle slot keeps its cache; false: it is cleared; `undefined`: the server did not answer the look. */
  keeps: boolean | undefined;
  /** True when a slot could be saved to a file (`--slot-save-path`). */
  saves: boolean;
}

/** One POST of the look: the parsed JSON of a 2xx answer, else `undefined`; never rejects. */
export type SlotPost = (path: string, body: Record<string, unknown>) => Promise<unknown>;

/** The file name of the probe's own save (in the server's `--slot-save-path` folder). */
const PROBE_FILE = 'openai-acp-probe.bin';

/** `timings.cache_n` of a `/completion` answer, else `undefined`. */
function cacheN(answer: unknown): number | undefined {
  const timings = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)['timings'] : undefined;
  const n = typeof timings === 'object' && timings !== null ? (timings as Record<string, unknown>)['cache_n'] : undefined;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Looks at a server with `total` (≥ 2) slots through `post` (see the module comment). Four short requests; one when the first fails. */
export async function probeSlots(total: number, post: SlotPost): Promise<SlotProbe> {
  const [first, second] = [total - 1, total - 2];
  const prompt = (slot: number) => ({
    prompt: `openai-acp looks whether slot ${slot} keeps this prompt in its cache while another slot works.`,
    n_predict: 0,
    id_slot: slot,
    cache_prompt: true,
  });
  // A server that does not answer the first prompt is asked nothing more.
  if ((await post('/completion', prompt(first))) === undefined) return { keeps: undefined, saves: false };
  await post('/completion', prompt(second));
  const again = cacheN(await post('/completion', prompt(first)));
  const saves = (await post(`/slots/${first}?action=save`, { filename: PROBE_FILE })) !== undefined;
  return { keeps: again === undefined ? undefined : again > 0, saves };
}

/**
 * Why the sessions get no slot of their own on a server the look found so, or `undefined` when
 * they do: where idle slots are cleared and cannot be saved, a pinned session would come back to
 * an empty slot and read its whole prompt, more than the server's own choice makes it read.
 */
export function slotPolicy(found: SlotProbe): string | undefined {
  if (found.keeps === undefined) return 'the server did not answer the look at its slots (POST /completion with id_slot), so it places each request itself';
  if (!found.keeps && !found.saves)
    return (
      'the server clears idle slots and cannot save them, so it places each request itself; to keep several ' +
      'sessions cached, start llama-server with -np N --no-cache-idle-slots, or with --slot-save-path DIR'
    );
  return undefined;
}
