/**
 * Keeping the prompt under the model's context window: a dependency-free token estimate,
 * calibrated with the provider's own count (`usage.prompt_tokens`) of the previous request, and
 * a plan that leaves out the oldest whole turns until the prompt fits, always keeping the system
 * prompt and the current user message.
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

// The image-size reader moved to image-size.ts; re-exported so importers keep working.
export { imageDimensions } from './image-size.js';

/** Tokens of framing per message (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens priming the reply, counted once per request. */
export const REPLY_PRIMING_TOKENS = 3;
/** OpenAI's cost of a low-detail image, and the base of a high-detail one. */
export const IMAGE_BASE_TOKENS = 85;
/** OpenAI's cost per 512-px tile of a high-detail image. */
export const IMAGE_TILE_TOKENS = 170;
/**
 * An image whose size is unknown (an http(s) URL, an unreadable header): 6 tiles, what OpenAI
 * charges for a 16:9 screenshot (1920 × 1080 → 1365 × 768) — larger than most images sent, so the
 * estimate errs towards leaving room.
 */
export const UNKNOWN_IMAGE_TOKENS = IMAGE_BASE_TOKENS + 6 * IMAGE_TILE_TOKENS;
/** Calibration factor bounds: a provider's count never scales the estimate beyond these. */
export const CALIBRATION_MIN = 0.5;
export const CALIBRATION_MAX = 3;
/** Estimates below this many tokens are not used for calibration (fixed template overhead dominates them). */
export const MIN_CALIBRATION_TOKENS = 256;
/** Default room left for the answer when `maxTokens` is unknown: min(this, 25 % of the window). */
export const DEFAULT_RESERVE_TOKENS = 4096;

/** Estimated tokens of plain text (see the module comment). */
export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let wide = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
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
      const p = (typeof part === 'object' && part !== null ? part : {}) as Record<string, any>;
      if (p['type'] === 'text' && typeof p['text'] === 'string') tokens += estimateTextTokens(p['text']);
      else if (p['type'] === 'image_url') tokens += estimateImageTokens(String(p['image_url']?.url ?? ''), p['image_url']?.detail);
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
  /** {@link ContextPlan.rawEstimatedTokens} of that request. */
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

/** What {@link planContext} plans from. */
export interface ContextPlanInput {
  /** The system prompt; always kept. */
  system?: ChatMessage | undefined;
  /** Earlier turns, oldest first; each is `[user, assistant?, …]` and is kept or dropped whole. */
  turns: ReadonlyArray<ReadonlyArray<ChatMessage>>;
  /** The new user message; always kept, always last. */
  current: ChatMessage;
  /** The model's context window in tokens; `undefined` (or not a positive number): no trimming. */
  contextWindow: number | undefined;
  /** Tokens left for the answer. @defaultValue `maxTokens` when set, else min({@link DEFAULT_RESERVE_TOKENS}, 25 % of the window) */
  reserveTokens?: number | undefined;
  /** The request's `max_tokens` (`OPENAI_MAX_TOKENS`), if any: the default reserve. */
  maxTokens?: number | undefined;
  /** The last request's estimate and the provider's count, to scale estimates (see {@link calibrationFactor}). */
  calibration?: Calibration | undefined;
}

/** The messages to send, and what was left out. */
export interface ContextPlan {
  /** System prompt (if any), the kept turns flattened in order, then the current message. */
  messages: ChatMessage[];
  /** Earlier turns left out: always the oldest ones. */
  droppedTurns: number;
  /** Earlier turns kept (`turns.length - droppedTurns`). */
  keptTurns: number;
  /** Calibrated estimate of `messages`, in tokens. */
  estimatedTokens: number;
  /** Uncalibrated estimate of `messages` ({@link estimateTokens}); pass it as the next `calibration.estimated` along with the provider's `prompt_tokens`. */
  rawEstimatedTokens: number;
  /** Tokens the prompt may take (window minus reserve, >= 0); `undefined` without a window. */
  budget: number | undefined;
  /** False when even the system prompt and current message exceed `budget` (they are sent anyway). */
  fits: boolean;
}

const positive = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/**
 * Chooses the messages of the next request: keeps the newest earlier turns whose calibrated
 * estimate fits in `contextWindow - reserve`, dropping whole turns from the oldest; kept turns
 * are always a suffix of `turns`. The system prompt and the current message are kept even when
 * they alone do not fit (the provider will then say the prompt is too long). Pure.
 */
export function planContext(input: ContextPlanInput): ContextPlan {
  const factor = calibrationFactor(input.calibration);
  const scaled = (raw: number) => Math.ceil(raw * factor);
  const window = positive(input.contextWindow) ? input.contextWindow : undefined;
  const reserve =
    window === undefined
      ? 0
      : input.reserveTokens !== undefined && Number.isFinite(input.reserveTokens)
        ? Math.max(0, input.reserveTokens)
        : positive(input.maxTokens)
          ? input.maxTokens
          : Math.min(DEFAULT_RESERVE_TOKENS, Math.floor(window / 4));
  const budget = window === undefined ? undefined : Math.max(0, Math.floor(window - reserve));

  const sum = (messages: readonly ChatMessage[]) => messages.reduce((total, m) => total + estimateMessageTokens(m), 0);
  let raw = REPLY_PRIMING_TOKENS + (input.system ? estimateMessageTokens(input.system) : 0) + estimateMessageTokens(input.current);
  const fits = budget === undefined || scaled(raw) <= budget;
  let kept = 0;
  for (let i = input.turns.length - 1; i >= 0; i--) {
    const cost = sum(input.turns[i]!);
    if (budget !== undefined && scaled(raw + cost) > budget) break;
    raw += cost;
    kept++;
  }
  const messages = [
    ...(input.system ? [input.system] : []),
    ...input.turns.slice(input.turns.length - kept).flat(),
    input.current,
  ];
  return {
    messages,
    droppedTurns: input.turns.length - kept,
    keptTurns: kept,
    estimatedTokens: scaled(raw),
    rawEstimatedTokens: raw,
    budget,
    fits,
  };
}

/** `128000` → `128,000`. */
const grouped = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The thought telling the user that history was trimmed, e.g. "3 earlier turns were left out to
 * fit the model's context window (128,000 tokens)."; '' when `droppedTurns` is not positive.
 */
export function trimmingNotice(droppedTurns: number, contextWindow: number): string {
  if (!(droppedTurns > 0)) return '';
  const turns = droppedTurns === 1 ? '1 earlier turn was' : `${grouped(droppedTurns)} earlier turns were`;
  return `${turns} left out to fit the model's context window (${grouped(contextWindow)} tokens).`;
}
