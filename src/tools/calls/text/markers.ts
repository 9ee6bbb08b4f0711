/**
 * The markers that open a tool call written as text, each with the reader of what follows it. A
 * marker is the format's own token or tag, so a call is looked for wherever one stands in the
 * answer (after prose, between prose). Wrapper tags hold any body `tag-body.ts` reads; token
 * formats have readers of their own. Pure.
 *
 * Wrappers and their sources: `<tool_call>` (Hermes, Qwen2.5/3, Qwen3-Coder, GLM, Granite 4),
 * `<|tool_call|>` (Granite 3, Phi-4-mini), `<TOOLCALL>` (Nemotron), `<tool_calls>` (Hunyuan,
 * Apriel), `<function_calls>` (OLMo 3), `<|tool_call_start|>` (LFM2), `<|START_ACTION|>` (Command
 * A / R7B), `<seed:tool_call>` (Seed-OSS), `<minimax:tool_call>` (MiniMax M2), `<|python_tag|>`
 * (Llama 3.x), `<|python_start|>` (Llama 4), a ```` ```tool_code ```` fence (Gemma 3); tokens:
 * `[TOOL_CALLS]` (Mistral), `<|tool_call>` (Gemma 4), Harmony's, DeepSeek's and Kimi's. From
 * llama.cpp's `common/chat*.cpp` formats, vLLM's `tool_parsers/` and Ollama's `model/parsers/`.
 */
import { DEEPSEEK_MARKERS, deepseekAt } from './deepseek.js';
import { GEMMA_CALL, gemmaCall } from './gemma.js';
import { HARMONY_MARKERS, harmonyAt } from './harmony.js';
import { mistralAt, TOOL_CALLS } from './mistral.js';
import type { Finder } from './finder.js';
import { bodyCalls } from './tag-body.js';
import type { MarkerRead, OfferedTools, TextCallFormat } from './text-call.js';
import { functionTagAt, invokeTagAt } from './xml-calls.js';

/** What a marker's reader gets: the text, where the marker stands, and the offered tools. */
interface MarkerContext {
  text: string;
  at: number;
  finder: Finder;
  tools: OfferedTools;
}

interface Marker {
  marker: string;
  read(context: MarkerContext): MarkerRead | undefined;
}

/**
 * A wrapper: the body runs from the marker to its closing tag (any of `closers`), to the next
 * marker of the same kind when the closing tag is missing (two calls glued together), or to the
 * end of the answer.
 */
function wrapper(marker: string, closers: readonly string[], format: TextCallFormat): Marker {
  return {
    marker,
    read({ text, at, finder, tools }) {
      const start = at + marker.length;
      let close = -1;
      let closer = '';
      for (const c of closers) {
        const found = finder.indexOf(c, start);
        if (found >= 0 && (close < 0 || found < close)) [close, closer] = [found, c];
      }
      const next = finder.indexOf(marker, start);
      let limit = text.length;
      let end = text.length;
      if (next >= 0 && (close < 0 || next < close)) limit = end = next;
      else if (close >= 0) [limit, end] = [close, close + closer.length];
      const calls = bodyCalls(text, start, limit, { tools, finder, atEnd: limit === text.length }, format);
      return calls && { calls, end };
    },
  };
}

/** One call read by a tag reader, as a marker's read. */
const one = (found: { call: MarkerRead['calls'][number]; end: number } | undefined): MarkerRead | undefined => found && { calls: [found.call], end: found.end };

/** Every marker; the order matters only for markers that start alike (the longer first). */
const MARKERS: readonly Marker[] = [
  wrapper('<tool_call>', ['</tool_call>'], 'hermes'),
  wrapper('<|tool_call|>', ['<|/tool_call|>', '</tool_call>'], 'granite'),
  wrapper('<TOOLCALL>', ['</TOOLCALL>'], 'hermes'),
  wrapper('<tool_calls>', ['</tool_calls>'], 'hermes'),
  wrapper('<function_calls>', ['</function_calls>'], 'pythonic'),
  wrapper('<function_call>', ['</function_call>'], 'hermes'),
  wrapper('<|tool_call_start|>', ['<|tool_call_end|>'], 'pythonic'),
  wrapper('<|START_ACTION|>', ['<|END_ACTION|>'], 'json'),
  wrapper('<seed:tool_call>', ['</seed:tool_call>'], 'qwen-xml'),
  wrapper('<minimax:tool_call>', ['</minimax:tool_call>'], 'minimax'),
  wrapper('<|python_tag|>', ['<|eom_id|>', '<|eot_id|>'], 'llama'),
  wrapper('<|python_start|>', ['<|python_end|>'], 'llama'),
  wrapper('```tool_code', ['```'], 'pythonic'),
  wrapper('```tool_call', ['```'], 'hermes'),
  { marker: '<function=', read: ({ text, at, tools, finder }) => one(functionTagAt(text, at, text.length, { tools, finder, atEnd: true })) },
  { marker: '<invoke ', read: ({ text, at, tools, finder }) => one(invokeTagAt(text, at, text.length, { tools, finder, atEnd: true })) },
  { marker: TOOL_CALLS, read: ({ text, at }) => mistralAt(text, at, text.length) },
  {
    marker: GEMMA_CALL,
    read: ({ text, at, finder }) => {
      const close = finder.indexOf('<tool_call|>', at);
      const call = gemmaCall(text, at + GEMMA_CALL.length, close < 0 ? text.length : close, finder);
      return call && { calls: [call], end: close < 0 ? text.length : close + '<tool_call|>'.length };
    },
  },
  ...HARMONY_MARKERS.map((marker): Marker => ({ marker, read: ({ text, at }) => harmonyAt(text, at, text.length) })),
  ...DEEPSEEK_MARKERS.map((marker): Marker => ({ marker, read: ({ text, at }) => deepseekAt(text, at, text.length) })),
];

const BY_MARKER = new Map(MARKERS.map((m) => [m.marker, m]));
const regexSource = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** All markers as one search, longest first where one starts another. */
const ANY_MARKER = new RegExp(
  [...BY_MARKER.keys()]
    .sort((a, b) => b.length - a.length)
    .map(regexSource)
    .join('|'),
  'g',
);
/** The longest marker's length (how far back a marker split across deltas may start). */
const LONGEST_MARKER = Math.max(...[...BY_MARKER.keys()].map((m) => m.length));

/** The first marker at or after `from`, or `undefined`. */
export function nextMarker(text: string, from: number): { index: number; marker: string } | undefined {
  ANY_MARKER.lastIndex = from;
  const match = ANY_MARKER.exec(text);
  return match ? { index: match.index, marker: match[0] } : undefined;
}

/** Reads the calls after the marker `marker` at `at`; `undefined` when none can be read there. */
export function readAtMarker(marker: string, context: MarkerContext): MarkerRead | undefined {
  return BY_MARKER.get(marker)?.read(context);
}

/** Every start of a marker (`<tool_`, `[TOOL_C`, `commentary t`, and the marker whole): what a text cut inside a marker ends with. */
const MARKER_STARTS: ReadonlySet<string> = new Set(
  [...BY_MARKER.keys()].flatMap((marker) => Array.from({ length: marker.length }, (_, n) => marker.slice(0, n + 1))),
);

/** The characters a marker begins with. */
const MARKER_FIRSTS: ReadonlySet<string> = new Set([...BY_MARKER.keys()].map((marker) => marker[0]!));

/**
 * Whether `text`, after the character `before`, holds no place a marker may begin at (no
 * character a marker starts with, or only letters inside words): such a piece of a streamed
 * answer may be shown as it is, without a search.
 */
export function clearOfMarkers(before: string, text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (!MARKER_FIRSTS.has(c)) continue;
    // A marker that is a word (`commentary to=`) begins only where a word does.
    if (/[A-Za-z]/.test(c) && /[A-Za-z0-9]/.test(i === 0 ? before : text[i - 1]!)) continue;
    // What follows may still rule it out (`t5` starts no marker; `to=f` may, `<tool_call>x` is one).
    const rest = text.slice(i, i + LONGEST_MARKER);
    if (MARKER_STARTS.has(rest)) return false;
    for (let n = 1; n < rest.length; n++) if (BY_MARKER.has(rest.slice(0, n))) return false;
  }
  return true;
}

/**
 * The start of a marker cut off by the end of `text` (a suffix of the text that begins some
 * marker), searched from `from`; `text.length` when there is none. Called for every streamed
 * piece: a look-up per position of the last few characters, not a scan of every marker.
 */
export function partialMarkerStart(text: string, from: number): number {
  for (let i = Math.max(from, text.length - LONGEST_MARKER + 1); i < text.length; i++) {
    if (!MARKER_FIRSTS.has(text[i]!)) continue;
    const tail = text.slice(i);
    if (!MARKER_STARTS.has(tail)) continue;
    // A marker that is a word (`commentary to=`) may begin only where a word does: the `t` ending `it` is no start.
    if (/^[A-Za-z]/.test(tail) && /[A-Za-z0-9]/.test(text[i - 1] ?? ' ')) continue;
    return i;
  }
  return text.length;
}
