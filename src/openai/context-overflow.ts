/**
 * Recognising an answer that says the request is larger than the model's context window, and
 * reading the window (and the tokens asked for) from its words. Pure.
 *
 * The shape recognised, rather than a list of strings (real texts and where they come from:
 * `test/fixtures/context-overflow/cases.json`):
 * - a code or type that says so, whatever the status: OpenAI/Azure/Groq `context_length_exceeded`,
 *   llama.cpp and Ollama `exceed_context_size_error`, LiteLLM `ContextWindowExceededError`;
 * - or, on HTTP 400, 413 or 422 and in errors reported inside a stream, a message that speaks of
 *   the context (length, size, window, limit, `n_ctx`) being exceeded, or of the prompt, input,
 *   request or messages being too long / too large, or of input tokens over a maximum or limit.
 *
 * Not an overflow: a limit on the answer alone ("max_tokens is too large", "max_tokens: 21333 >
 * 4096, which is the maximum allowed number of output tokens"), a rate limit on tokens per
 * minute (429), a rejected parameter or tool schema (`rejection.ts` reads those).
 */
import { ProviderHttpError, ProviderReportedError, type ProviderError } from './errors.js';
import { isRecord, parseJsonOrUndefined } from '../shared/json-value.js';

/** What an overflow answer said. */
export interface ContextOverflow {
  /** The context window it stated, in tokens; absent when the text gives no number. */
  window?: number;
  /** The tokens the request took (or asked for, answer room included), when stated. */
  requested?: number;
}

/** The parts of a failure the recogniser reads. */
interface OverflowEvidence {
  /** HTTP status, or the status a provider put in an in-stream error; `undefined` for none. */
  status?: number | undefined;
  /** Response body (JSON or text) or the in-stream error's message. */
  body: string;
  /** An error code given beside the body (in-stream errors). */
  code?: string | undefined;
  /** True for an error reported inside a 200 stream: no status gate. */
  inStream?: boolean | undefined;
}

/** Codes and types that mean "over the context window" by themselves. */
const OVERFLOW_CODES = /^(context_length_exceeded|exceed_context_size_error|context_window_exceeded|contextwindowexceedederror)$/i;
/** Statuses whose message is read for the words. */
const READ_STATUSES = new Set([400, 413, 422]);

const N = String.raw`(\d[\d,]*)`;
/** The context named, exceeded: "maximum context length", "context size", "n_ctx", "context window of". */
const CONTEXT = /\b(?:(?:max(?:imum)?\s+)?context(?:[\s_-]+(?:length|size|window|limit))|n_ctx\b|maximum context\b|context the overflows)/i;
const EXCEEDED = new RegExp(
  String.raw`\bexceed|\brequested\b|\bresulted in\b|\btoo (?:long|large|many)|\bgreater than|\bmore than|\breduce\b|\boverflow|` +
    String.raw`\bnot enough|\blarger than|>=?|<=|\bmust have less than|\bbeyond|\bover\b|\bonly\b`,
  'i',
);
/** Shapes that say the prompt is too long without naming the context. */
const TOO_LONG: readonly RegExp[] = [
  /\b(?:prompt|input|request|messages?|conversation|inputs)\b[^.\n]{0,40}?\b(?:is|are|was)\s+too\s+(?:long|large)\b/i,
  /\b(?:prompt|input)\s+is\s+too\s+long\b/i,
  /\binput token count\b[^.\n]{0,40}\bexceeds\b/i,
  /\binput tokens exceed\b/i,
  /\binputs`?\s+tokens\s*\+\s*`?max_new_tokens`?\s+must be\s*<=/i,
  /\binputs`?\s+must have less than\s+\d+\s+tokens/i,
  /\bmaximum prompt length\b/i,
  /\b(?:prompt|input)\s+(?:length\s+)?\d[\d,]*\s*(?:tokens\s+)?exceeds?\b/i,
  /\bplease reduce the length of the (?:messages|input|prompt)/i,
  /\brequested tokens\s*\(\d+\)\s*exceed/i,
  /\bprompt exceeds\b/i,
];
/** Where the window is stated, first match wins (group 1). */
const WINDOW_PATTERNS: readonly RegExp[] = [
  new RegExp(String.raw`maximum context length\s*(?:is|of|:)?\s*${N}`, 'i'),
  new RegExp(String.raw`available context size\s*\(${N}\s*tokens?\)`, 'i'),
  new RegExp(String.raw`context length of only\s*${N}`, 'i'),
  new RegExp(String.raw`too large for model with\s*${N}\s*maximum context`, 'i'),
  new RegExp(String.raw`maximum number of tokens allowed\s*\(${N}\)`, 'i'),
  new RegExp(String.raw`exceed context limit:\s*\d[\d,]*\s*\+\s*\d[\d,]*\s*>\s*${N}`, 'i'),
  new RegExp(String.raw`tokens?\s*>\s*${N}\s*maximum`, 'i'),
  new RegExp(String.raw`n_ctx\s*(?:[:=(]\s*|\)\s*)?${N}`, 'i'),
  new RegExp(String.raw`configured limit of\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`maximum prompt length is\s*${N}`, 'i'),
  new RegExp(String.raw`must be\s*<=\s*${N}`, 'i'),
  new RegExp(String.raw`must have less than\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`exceeds? (?:the )?context (?:length|size|window)(?: of)?\s*\(?${N}`, 'i'),
  new RegExp(String.raw`context window of\s*${N}`, 'i'),
  new RegExp(String.raw`while limit is\s*${N}`, 'i'),
  new RegExp(String.raw`(?:context|model)(?: length| size| window)? (?:limit|maximum)(?: is|:)\s*${N}`, 'i'),
];
/** Where the tokens of the request are stated (group 1). */
const REQUESTED_PATTERNS: readonly RegExp[] = [
  new RegExp(String.raw`for a total of at least\s*${N}`, 'i'),
  new RegExp(String.raw`you requested (?:about )?${N}\s*tokens`, 'i'),
  new RegExp(String.raw`messages resulted in\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`request has\s*${N}\s*input tokens`, 'i'),
  new RegExp(String.raw`request \(${N}\s*tokens\)`, 'i'),
  new RegExp(String.raw`prompt is too long:\s*${N}`, 'i'),
  new RegExp(String.raw`input length and \x60?max_tokens\x60? exceed context limit:\s*${N}\s*\+\s*${N}`, 'i'),
  new RegExp(String.raw`input token count\s*\(${N}\)`, 'i'),
  new RegExp(String.raw`prompt contains\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`keep the first\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`n_keep\s*(?:[:=(]\s*)?${N}`, 'i'),
  new RegExp(String.raw`given:\s*${N}`, 'i'),
  new RegExp(String.raw`current length is\s*${N}`, 'i'),
  new RegExp(String.raw`input length\s*${N}`, 'i'),
  new RegExp(String.raw`requested tokens\s*\(${N}\)`, 'i'),
  new RegExp(String.raw`request contains\s*${N}\s*tokens`, 'i'),
  new RegExp(String.raw`prompt (?:is|has)\s*${N}\s*tokens`, 'i'),
];

const toCount = (text: string | undefined): number | undefined => {
  if (!text) return undefined;
  const n = Number(text.replace(/,/g, ''));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** Every string, every `code`/`type` and the numeric `n_ctx` / `n_prompt_tokens`, at any depth (JSON inside strings included). */
interface Gathered {
  texts: string[];
  codes: string[];
  nCtx?: number;
  nPrompt?: number;
}

function gather(value: unknown, out: Gathered, depth = 0): Gathered {
  if (depth > 8) return out;
  if (typeof value === 'string') {
    out.texts.push(value);
    const inner = value.trim();
    const start = inner.search(/[{[]/);
    if (start >= 0 && inner.length < 20_000) {
      const parsed = parseJsonOrUndefined(inner.slice(start));
      if (parsed !== undefined) gather(parsed, out, depth + 1);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) gather(item, out, depth + 1);
  } else if (isRecord(value)) {
    for (const key of ['code', 'type']) if (typeof value[key] === 'string') out.codes.push(value[key] as string);
    if (typeof value['n_ctx'] === 'number' && value['n_ctx'] > 0) out.nCtx ??= value['n_ctx'];
    if (typeof value['n_prompt_tokens'] === 'number' && value['n_prompt_tokens'] > 0) out.nPrompt ??= value['n_prompt_tokens'];
    for (const item of Object.values(value)) gather(item, out, depth + 1);
  }
  return out;
}

/**
 * Whether `text` says the request is over the context window (see the module comment).
 * @internal a pure test of a text, checked on real overflow messages.
 */
export function saysContextOverflow(text: string): boolean {
  if (CONTEXT.test(text) && EXCEEDED.test(text.replace(CONTEXT, ''))) return true;
  return TOO_LONG.some((pattern) => pattern.test(text));
}

const firstMatch = (patterns: readonly RegExp[], text: string, group = 1): number | undefined => {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    const n = toCount(match?.[group]);
    if (n !== undefined) return n;
  }
  return undefined;
};

/**
 * Reads a failure's status and body: the overflow it reports with the numbers its text states,
 * or `undefined` when it is not an overflow (see the module comment for the shapes).
 * @internal a pure reader (fast-check properties) of an answer's status and body.
 */
export function recognizeOverflowIn(evidence: OverflowEvidence): ContextOverflow | undefined {
  const parsed = parseJsonOrUndefined(evidence.body.trim());
  const found = gather(parsed === undefined ? evidence.body : parsed, { texts: [], codes: [] });
  if (evidence.code) found.codes.push(evidence.code);
  const text = found.texts.join('\n');
  const coded = found.codes.some((code) => OVERFLOW_CODES.test(code.trim()));
  const readable = evidence.inStream || (evidence.status !== undefined && READ_STATUSES.has(evidence.status));
  if (evidence.status === 429) return undefined;
  if (!coded && !(readable && saysContextOverflow(text))) return undefined;
  const overflow: ContextOverflow = {};
  const window = found.nCtx ?? firstMatch(WINDOW_PATTERNS, text);
  if (window !== undefined) overflow.window = window;
  const anthropicSum = /exceed context limit:\s*(\d[\d,]*)\s*\+\s*(\d[\d,]*)/i.exec(text);
  const requested = found.nPrompt ?? (anthropicSum ? toCount(anthropicSum[1])! + toCount(anthropicSum[2])! : firstMatch(REQUESTED_PATTERNS, text));
  if (requested !== undefined && requested !== window) overflow.requested = requested;
  return overflow;
}

/**
 * Whether a provider failure is a context overflow, with the window and request size its text
 * states: an HTTP answer (status and body) or an error reported inside a stream (message and
 * code). Other failures (connection, timeout, broken stream) are never overflows.
 */
export function recognizeOverflow(error: ProviderError): ContextOverflow | undefined {
  if (error instanceof ProviderHttpError) return recognizeOverflowIn({ status: error.status, body: error.body || error.providerMessage || '' });
  if (error instanceof ProviderReportedError) return recognizeOverflowIn({ status: error.status, body: error.message, code: error.code, inStream: true });
  return undefined;
}
