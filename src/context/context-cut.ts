/**
 * What the context planner (`context-fit.ts`) does to single messages: cut a long text to a
 * number of tokens (head and tail kept, one note line between that says how to get the rest, by
 * the tool that produced it), and replace an old tool result by a one-line stub naming the call.
 * Pure; token counts are the uncalibrated estimate of `token-estimate.ts`.
 */
import type { ChatMessage, ChatToolCall } from '../openai/openai-types.js';
import { estimateTextTokens } from './token-estimate.js';
import { grouped } from '../shared/grouped.js';

/** Where a cut is: 1-based numbers of the first and last line left out, and how many there are. */
interface CutInfo {
  firstLine: number;
  lastLine: number;
  omitted: number;
  /** The first line left out, as it reads (read_file lines start with their number). */
  firstText: string;
  /** The last line left out, as it reads. */
  lastText: string;
}

/** Writes the note line of a cut. */
export type CutNote = (info: CutInfo) => string;

/** The cut note of a tool by its name (the tool's own, from its module), or undefined. */
export type CutNotes = (toolName: string) => CutNote | undefined;

/** `1 line`, `1,200 lines`. */
export const linesWord = (n: number) => `${grouped(n)} ${n === 1 ? 'line' : 'lines'}`;
const lines = linesWord;

/** The note for a text with no better advice: `[... 120 lines left out to fit the context window ...]`. */
export const plainNote: CutNote = ({ omitted }) => `[... ${lines(omitted)} left out to fit the context window ...]`;

/** The line number a `read_file` line (`"42\ttext"`) starts with, if it has one. */
export function fileLine(text: string): number | undefined {
  const match = /^(\d+)\t/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/**
 * The note of a cut tool result, saying how to get the rest: the tool's own note (its module's
 * `cutNote`: `read_file` gives the `offset` and `limit` of the lines left out), else a narrower call.
 */
export function toolResultNote(own: CutNote | undefined): CutNote {
  return own ?? ((info) => `[... ${lines(info.omitted)} left out to fit the context window; ask for less at a time ...]`);
}

/**
 * `text` within about `maxTokens` estimated tokens: the first and last lines (half the allowance
 * each, the note's tokens taken from it), the note on a line of its own between them. A line
 * too long for its half is cut inside. Returns `text` itself when it already fits.
 */
export function cutText(text: string, maxTokens: number, note: CutNote = plainNote): string {
  if (estimateTextTokens(text) <= maxTokens) return text;
  const all = text.split('\n');
  // The note's length depends on the cut; a generous stand-in is measured for the room it takes.
  const noteRoom =
    estimateTextTokens(note({ firstLine: 1_000_000, lastLine: 1_000_000, omitted: 1_000_000, firstText: '1000000\t', lastText: '1000000\t' })) + 2;
  const room = Math.max(0, maxTokens - noteRoom);
  const headRoom = Math.ceil(room / 2);
  let tailRoom = room - headRoom;
  let head = 0;
  let used = 0;
  while (head < all.length) {
    const cost = estimateTextTokens(all[head]!) + 1;
    if (used + cost > headRoom) break;
    used += cost;
    head++;
  }
  tailRoom += headRoom - used;
  let tail = all.length;
  used = 0;
  while (tail > head + 1) {
    const cost = estimateTextTokens(all[tail - 1]!) + 1;
    if (used + cost > tailRoom) break;
    used += cost;
    tail--;
  }
  const kept = [...all.slice(0, head)];
  // Nothing of the head fitted whole (one long line): keep the start of that line instead.
  let firstOmitted = head;
  if (head === 0 && all.length > 0 && headRoom > 1) {
    // Each UTF-16 unit is at most one estimated token; a surrogate pair is never split.
    let end = Math.min(all[0]!.length, headRoom - 1);
    if (end > 0 && end < all[0]!.length && /[\ud800-\udbff]/.test(all[0]!.charAt(end - 1))) end--;
    kept.push(`${all[0]!.slice(0, end)}…`);
    firstOmitted = 0;
  }
  const info: CutInfo = {
    firstLine: firstOmitted + 1,
    lastLine: tail,
    omitted: Math.max(1, tail - head),
    firstText: all[firstOmitted] ?? '',
    lastText: all[tail - 1] ?? '',
  };
  return [...kept, note(info), ...all.slice(tail)].join('\n');
}

/** Longest tool-call arguments kept in a stub, in characters. */
const STUB_ARGUMENTS_CHARS = 120;
/** Longest string value kept in the arguments of a call whose result was stubbed, in characters. */
const SHORT_VALUE_CHARS = 200;

/** The stub that replaces an old tool result: it names the call and says it can be repeated. */
export function resultStub(call: ChatToolCall | undefined): string {
  if (!call) return '[Result left out to save context; call the tool again if you need it.]';
  const args = call.function.arguments.length > STUB_ARGUMENTS_CHARS ? `${call.function.arguments.slice(0, STUB_ARGUMENTS_CHARS)}…` : call.function.arguments;
  return `[Result of ${call.function.name} ${args} left out to save context; call it again if you need it.]`;
}

/** Said in place of images returned by tools, once they are left out. */
export const IMAGES_STUB = '[Images returned by the tool calls above were left out to save context.]';

/**
 * The call with long string values of its JSON arguments shortened (a `write_file` content, an
 * `edit_file` text), still valid JSON; unchanged when nothing is long or the arguments are not JSON.
 */
export function shortenedCall(call: ChatToolCall): ChatToolCall {
  if (call.function.arguments.length <= SHORT_VALUE_CHARS) return call;
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments);
  } catch {
    return call;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return call;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string' && value.length > SHORT_VALUE_CHARS) {
      const left = value.length - SHORT_VALUE_CHARS;
      out[key] = `${value.slice(0, SHORT_VALUE_CHARS)}[... ${grouped(left)} ${left === 1 ? 'character' : 'characters'} left out to save context]`;
      changed = true;
    } else out[key] = value;
  }
  return changed ? { ...call, function: { ...call.function, arguments: JSON.stringify(out) } } : call;
}

/**
 * The user message that started a turn, cut to `maxTokens` estimated tokens (text parts only,
 * each in proportion to its size; images are kept). Unchanged when it fits.
 */
export function cutUserMessage(message: ChatMessage, maxTokens: number): ChatMessage {
  if (message.role !== 'user') return message;
  const note: CutNote = ({ omitted }) => `[... ${lines(omitted)} of this message left out to fit the model's context window ...]`;
  if (typeof message.content === 'string') return { role: 'user', content: cutText(message.content, maxTokens, note) };
  const textTokens = message.content.reduce((sum, part) => sum + (part.type === 'text' ? estimateTextTokens(part.text) : 0), 0);
  if (textTokens <= maxTokens) return message;
  return {
    role: 'user',
    content: message.content.map((part) =>
      part.type === 'text' ? { ...part, text: cutText(part.text, Math.floor((maxTokens * estimateTextTokens(part.text)) / textTokens), note) } : part,
    ),
  };
}
