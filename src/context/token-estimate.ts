/**
 * A dependency-free token estimate of a request (messages and tool definitions), calibrated with
 * the provider's own count (`usage.prompt_tokens`) of an earlier request, and the prompt budget
 * of a context window. Used by `context-fit.ts` to keep every request inside the window.
 *
 * The estimate is deliberately rough (no tokenizer ships with the agent; the model may be
 * anything). Its constants and their sources:
 * - text: ~4 characters per token for ASCII (OpenAI's rule of thumb for English,
 *   https://help.openai.com/en/articles/4936856-what-are-tokens-and-how-to-count-them);
 *   1 token per CJK/kana/hangul character and per UTF-16 unit of astral characters (emoji);
 *   1 token per 2 other non-ASCII characters (Cyrillic, Greek, Arabic… take 2 bytes in UTF-8,
 *   where BPE vocabularies hold fewer merges).
 * - per message: 4 tokens of chat-template framing, plus 3 priming the reply once per request
 *   (OpenAI cookbook "How to count tokens with tiktoken" counts 3 + 3; ChatML-style local
 *   templates use ~4-5 per message).
 * - images: OpenAI's high-detail cost, 85 + 170 per 512-px tile after fitting the image in
 *   2048 × 2048 and scaling its shorter side down to 768 px; 85 for `detail: "low"`
 *   (https://platform.openai.com/docs/guides/images-vision#calculating-costs). Sizes are read
 *   from the header of `data:` URLs (PNG, GIF, WebP, JPEG; see `image-size.ts`); other images
 *   count {@link UNKNOWN_IMAGE_TOKENS}.
 */
import type { ChatMessage } from '../openai/openai-types.js';
import { imageDimensions } from './image-size.js';

/**
 * Tokens of framing per message (role markers, separators).
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens priming the reply, counted once per request. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * OpenAI's cost of a low-detail image, and the base of a high-detail one.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const IMAGE_BASE_TOKENS = 85;
/**
 * OpenAI's cost per 512-px tile of a high-detail image.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const IMAGE_TILE_TOKENS = 170;
/**
 * An image whose size is unknown (an http(s) URL, an unreadable header): 6 tiles, what OpenAI
 * charges for a 16:9 screenshot (1920 × 1080 → 1365 × 768) — larger than most images sent, so the
 * estimate errs towards leaving room.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const UNKNOWN_IMAGE_TOKENS = IMAGE_BASE_TOKENS + 6 * IMAGE_TILE_TOKENS;
/**
 * Calibration factor bounds: a provider's count never scales the estimate beyond these.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const CALIBRATION_MIN = 0.5;
/**
 * The upper calibration bound (see {@link CALIBRATION_MIN}).
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const CALIBRATION_MAX = 3;
/** Estimates below this many tokens are not used for calibration (fixed template overhead dominates them). */
const MIN_CALIBRATION_TOKENS = 256;
/**
 * Least room left for the answer when `maxTokens` is unknown, in tokens (never more than 25 % of
 * the window; see {@link answerRoom}).
 */
const DEFAULT_RESERVE_TOKENS = 4096;
/** Share of a large window kept for the answer when `maxTokens` is unknown: 1/8 (see {@link answerRoom}). */
const RESERVE_SHARE = 1 / 8;

/** The first non-ASCII UTF-16 unit of a text. */
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Estimated tokens of plain text (see the module comment). The ASCII prefix (often the whole
 * text: code, logs, JSON) is measured by one regular-expression search, in native code, and only
 * the rest is walked unit by unit: several times faster on the large tool results the planner
 * estimates again at each step.
 */
export function estimateTextTokens(text: string): number {
  const first = text.search(NON_ASCII);
  if (first < 0) return Math.ceil(text.length / 4);
  let ascii = first;
  let wide = 0;
  let other = 0;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if ((c >= 0x2e80 && c <= 0xd7ff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef) || (c >= 0xd800 && c <= 0xdfff)) wide++;
    else other++;
  }
  return Math.ceil(ascii / 4 + wide + other / 2);
}

/**
 * Estimated tokens of one image part: OpenAI's tile formula for the size read from a `data:` URL
 * (85 for `detail: "low"`), {@link UNKNOWN_IMAGE_TOKENS} when the size is unknown.
 * @internal a pure step (fast-check properties) over image sizes no prompt would cover.
 */
export function estimateImageTokens(url: string, detail?: string): number {
  if (detail === 'low') return IMAGE_BASE_TOKENS;
  const match = /^data:[^,;]*(?:;[^,;]*)*;base64,/i.exec(url);
  const size = match ? imageDimensions(url.slice(match[0].length)) : undefined;
  if (!size) return UNKNOWN_IMAGE_TOKENS;
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shorten = Math.min(1, 768 / Math.min(width, height));
  const tiles = Math.ceil((width * shorten) / 512) * Math.ceil((height * shorten) / 512);
  return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * tiles;
}

/** Estimated tokens of any JSON value: its text, or its JSON text when it is not a string. */
function valueTokens(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') return estimateTextTokens(value);
  try {
    return estimateTextTokens(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}

/**
 * Estimated tokens of one message: {@link MESSAGE_OVERHEAD_TOKENS}, its text content or each of its
 * parts (text parts as text, `image_url` parts by {@link estimateImageTokens}), and any other
 * field (tool calls, `name`, `tool_call_id`) as its JSON text.
 */
export function estimateMessageTokens(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const [key, value] of Object.entries(message as Record<string, unknown>)) {
    if (key === 'role') continue;
    if (key !== 'content' || !Array.isArray(value)) {
      tokens += valueTokens(value);
      continue;
    }
    for (const part of value as unknown[]) {
      const p = (typeof part === 'object' && part !== null ? part : {}) as { type?: unknown; text?: unknown; image_url?: { url?: unknown; detail?: unknown } };
      if (p['type'] === 'text' && typeof p['text'] === 'string') tokens += estimateTextTokens(p['text']);
      else if (p['type'] === 'image_url')
        tokens += estimateImageTokens(String(p['image_url']?.url ?? ''), typeof p['image_url']?.detail === 'string' ? p['image_url'].detail : undefined);
      else tokens += valueTokens(part);
    }
  }
  return tokens;
}

/**
 * Estimated (uncalibrated) tokens of a request's messages: each message's estimate plus
 * {@link REPLY_PRIMING_TOKENS}; 0 for no messages.
 */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  if (messages.length === 0) return 0;
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message), REPLY_PRIMING_TOKENS);
}

/** A previous request's uncalibrated estimate and the provider's count of the same prompt (tokens). */
export interface Calibration {
  /** The uncalibrated estimate of that request ({@link estimateTokens} plus {@link estimateToolTokens}). */
  estimated: number;
  /** The provider's `usage.prompt_tokens` for it. */
  actual: number;
}

/**
 * The factor estimates are multiplied by: `actual / estimated`, clamped to
 * [{@link CALIBRATION_MIN}, {@link CALIBRATION_MAX}]; 1 without a calibration, or when either
 * number is not positive and finite, or `estimated` is below {@link MIN_CALIBRATION_TOKENS}.
 */
export function calibrationFactor(calibration: Calibration | undefined): number {
  if (!calibration) return 1;
  const { estimated, actual } = calibration;
  if (!Number.isFinite(estimated) || !Number.isFinite(actual) || actual <= 0 || estimated < MIN_CALIBRATION_TOKENS) return 1;
  return Math.min(CALIBRATION_MAX, Math.max(CALIBRATION_MIN, actual / estimated));
}

/**
 * Estimated tokens of a request's `tools` definitions: their JSON text. Chat templates render
 * them into the prompt (usually the system part), so they count against the window like messages.
 */
export function estimateToolTokens(tools: readonly unknown[] | undefined): number {
  return tools && tools.length > 0 ? valueTokens(tools) : 0;
}

/** Share of the window kept free besides the answer's room, for the estimate's error: 3 %. */
const MARGIN_SHARE = 0.03;

/**
 * Tokens left for the answer: `reserveTokens` when given, else `maxTokens` when set, else
 * min(25 % of the window, max({@link DEFAULT_RESERVE_TOKENS}, 1/8 of the window)): 1,024 of a
 * 4,096-token window, 4,096 up to a 32,768-token window, then an eighth (16,384 of 131,072;
 * 25,000 of 200,000; 50,000 of 400,000). The room is also the answer's cap (`max_tokens`, see
 * `loop/agent-loop.ts`), and a reasoning model's reasoning counts against it: OpenAI advises
 * reserving at least 25,000 tokens for reasoning and output
 * (https://platform.openai.com/docs/guides/reasoning#allocating-space-for-reasoning), which the
 * eighth gives the 200,000-token windows of its reasoning models, while a small local window
 * keeps most of its room for the prompt.
 */
export function answerRoom(window: number, maxTokens?: number, reserveTokens?: number): number {
  if (reserveTokens !== undefined && Number.isFinite(reserveTokens)) return Math.max(0, reserveTokens);
  if (positive(maxTokens)) return maxTokens;
  return Math.min(Math.floor(window / 4), Math.max(DEFAULT_RESERVE_TOKENS, Math.floor(window * RESERVE_SHARE)));
}

/**
 * Tokens the prompt (messages and tools) may take in a window of `window` tokens: the window
 * minus the answer's room ({@link answerRoom}) minus a margin of {@link MARGIN_SHARE} of the
 * window (none when `reserveTokens` is given explicitly: the caller chose the exact room); >= 0.
 */
export function promptBudget(window: number, maxTokens?: number, reserveTokens?: number): number {
  const margin = reserveTokens !== undefined && Number.isFinite(reserveTokens) ? 0 : Math.ceil(window * MARGIN_SHARE);
  return Math.max(0, Math.floor(window - answerRoom(window, maxTokens, reserveTokens) - margin));
}

/** True for a positive finite number. */
export const positive = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;
