/**
 * The markers that open a tool call written as text, each with the reader of what follows it,
 * built from the map of formats (`formats/`: every marker the model servers' parsers know, with
 * the server file it was read from). A marker is the format's own token or tag, so a call is
 * looked for wherever one stands in the answer (after prose, between prose). Wrapper tags hold
 * any body `tag-body.ts` reads; token formats have readers of their own. A marker that is also
 * ordinary text (`<tools>`, `Action:`, `call:`) makes a call only of offered tools. Pure.
 */
import { isOffered } from './bare-calls.js';
import { deepseekAt } from './deepseek.js';
import { dsmlAt } from './dsml.js';
import type { Finder } from './finder.js';
import { CALL_FORMATS, type CallMarker } from './formats/index.js';
import { gemmaCall } from './gemma.js';
import { harmonyAt } from './harmony.js';
import { mistralAt } from './mistral.js';
import { reactAt } from './react.js';
import { bodyCalls } from './tag-body.js';
import type { MarkerRead, OfferedTools, TextCallFormat } from './text-call.js';
import { functionTagAt, invokeTagAt } from './xml-calls.js';

/** What a marker's reader gets: the text, where the marker stands, and the offered tools. */
export interface MarkerContext {
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
function wrapper(marker: string, closers: readonly string[], format: TextCallFormat): Marker['read'] {
  return ({ text, at, finder, tools }) => {
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
  };
}

/** One call read by a tag reader, as a marker's read. */
const one = (found: { call: MarkerRead['calls'][number]; end: number } | undefined): MarkerRead | undefined => found && { calls: [found.call], end: found.end };

/** Gemma's closing tokens (Gemma 4's, its end of turn, FunctionGemma's). */
const GEMMA_CLOSERS = ['<tool_call|>', '<turn|>', '<end_function_call>'];

/** Gemma's call after its token: to the first closing token, or the end; `nameOnly`: the token held `call` (`<call>NAME{…}`). */
function gemmaAt(marker: string, nameOnly = false): Marker['read'] {
  return ({ text, at, finder }) => {
    let close = -1;
    let width = 0;
    for (const c of GEMMA_CLOSERS) {
      const found = finder.indexOf(c, at);
      if (found >= 0 && (close < 0 || found < close)) [close, width] = [found, c.length];
    }
    const limit = close < 0 ? text.length : close;
    const call = gemmaCall(text, at + marker.length, limit, finder, { nameOnly });
    return call && { calls: [call], end: close < 0 ? text.length : close + width };
  };
}

/** The reader of each kind of marker (`formats/call-format.ts`). */
function readerOf(spec: CallMarker): Marker['read'] {
  const { open } = spec;
  switch (spec.read) {
    case 'body':
      return wrapper(open, spec.close ?? [], spec.body ?? 'hermes');
    case 'function-tag':
      return ({ text, at, tools, finder }) => one(functionTagAt(text, at, text.length, { tools, finder, atEnd: true }));
    case 'invoke-tag':
      return ({ text, at, tools, finder }) => one(invokeTagAt(text, at, text.length, { tools, finder, atEnd: true }));
    case 'atem-invoke':
      return ({ text, at, tools, finder }) => one(invokeTagAt(text, at, text.length, { tools, finder, atEnd: true }, 'atem:'));
    case 'mistral-tokens':
      return ({ text, at }) => mistralAt(text, at, text.length);
    case 'gemma':
      return gemmaAt(open, open === '<call>');
    case 'gemma-bare':
      // `call:` begins a word: the `call:` ending `syscall:` is none.
      return (context) => (/[A-Za-z0-9_]/.test(context.text[context.at - 1] ?? ' ') ? undefined : gemmaAt('')(context));
    case 'harmony':
      return ({ text, at }) => harmonyAt(text, at, text.length);
    case 'call-tokens':
      return ({ text, at, tools, finder }) => deepseekAt(text, at, text.length, { tools, finder });
    case 'dsml':
      return ({ text, at, finder }) => dsmlAt(text, at, text.length, finder);
    case 'react':
      return ({ text, at, tools }) => reactAt(text, at, text.length, tools);
  }
}

/** A reader that keeps what it read only when every name in it is an offered tool. */
function offeredOnly(read: Marker['read']): Marker['read'] {
  return (context) => {
    const found = read(context);
    return found?.calls.every((call) => isOffered(call.name, context.tools)) ? found : undefined;
  };
}

/** Every marker of the map (a marker two families share is read by the first). */
const MARKERS: readonly Marker[] = CALL_FORMATS.flatMap((format) =>
  format.markers.map((spec): Marker => ({ marker: spec.open, read: spec.offeredOnly ? offeredOnly(readerOf(spec)) : readerOf(spec) })),
);

const BY_MARKER = new Map<string, Marker>();
for (const m of MARKERS) if (!BY_MARKER.has(m.marker)) BY_MARKER.set(m.marker, m);

/** Markers that prose also writes (`Action:`, `function call`, `<response>`): read only when every name in them is offered. */
const PROSE_LIKE: ReadonlySet<string> = new Set(
  CALL_FORMATS.flatMap((format) => format.markers.filter((spec) => spec.offeredOnly || /^[A-Za-z]/.test(spec.open)).map((spec) => spec.open)),
);

/** Whether `marker` is one prose also writes, so that what follows it must name an offered tool to begin a call. */
export function proseLikeMarker(marker: string): boolean {
  return PROSE_LIKE.has(marker);
}
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
