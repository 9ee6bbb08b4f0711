/**
 * What the context planner (`context-fit.ts`) does to the tool results of a request: each cut to
 * its share of the budget (step 1 of its plan), old ones replaced by one-line stubs in one block
 * just before the recent ones (step 2), and the current step's results sharing the room left
 * (step 4). Token counts are uncalibrated estimates (`token-estimate.ts`); the lists given are
 * copies the planner owns, changed in place.
 */
import type { ChatMessage, ChatToolCall } from '../openai/openai-types.js';
import { cutText, IMAGES_STUB, resultStub, shortenedCall, toolResultNote, type CutNote, type CutNotes } from './context-cut.js';
import { estimateMessageTokens } from './token-estimate.js';

/** Pruning stops once history takes at most this share of the room left for it (hysteresis: the next cut is many steps away). */
const PRUNE_TARGET = 0.5;
/** The newest tool result, and those before it within this share of the room for history, are stubbed last. */
const RECENT_SHARE = 0.125;

/** Estimated tokens of `messages`, each message's estimate summed (no reply priming). */
export const sumTokens = (messages: readonly ChatMessage[]) => messages.reduce((total, m) => total + estimateMessageTokens(m), 0);

/** A tool message, by where it sits: its list (a turn or a step) and its index there. */
export interface Slot {
  list: ChatMessage[];
  index: number;
}

/** The slots of every tool result in `lists`, in order (the ones that may be stubbed: all but the current step's). */
export function stubbableSlots(lists: readonly ChatMessage[][]): Slot[] {
  const slots: Slot[] = [];
  for (const list of lists) for (const [index, m] of list.entries()) if (m.role === 'tool') slots.push({ list, index });
  return slots;
}

/**
 * Replaces the slot's result by its stub (with the long arguments of its call, found in `calls`,
 * shortened, and the step's images left out); returns the tokens saved. Only the messages it may
 * replace (the result, its call's assistant message, the images after it) are estimated, before
 * and after: the others are the same objects, so they add the same to both sums.
 */
export function stubSlot(slot: Slot, calls: ReadonlyMap<string, ChatToolCall>): number {
  const m = slot.list[slot.index] as Extract<ChatMessage, { role: 'tool' }>;
  const call = callIndex(slot.list, m.tool_call_id);
  const touched = [...new Set([slot.index, call, slot.index + 1])].filter((i) => i >= 0 && i < slot.list.length);
  const tokensOf = () => touched.reduce((total, i) => total + estimateMessageTokens(slot.list[i]!), 0);
  const before = tokensOf();
  // A result shorter than its stub stays as it is.
  const stubText = resultStub(calls.get(m.tool_call_id));
  if (stubText.length < m.content.length) slot.list[slot.index] = { ...m, content: stubText };
  shortenCallAt(slot.list, call, m.tool_call_id);
  // A step's images follow its last result (only while its turn runs: later turns do not send them).
  if (slot.list[slot.index + 1]?.role === 'user') slot.list[slot.index + 1] = { role: 'user', content: IMAGES_STUB };
  return before - tokensOf();
}

/**
 * Stubs results (marking `flags`, by slot) until `raw` tokens are down to {@link PRUNE_TARGET} of
 * the room `rawBudget` leaves beside the fixed part (`fixedRaw`): the block just before the recent
 * results first, newest first, then the recent ones, oldest first. `stub` replaces one slot's
 * result and returns the tokens saved. Returns the new size in tokens (still over the target when
 * every slot is a stub).
 */
export function pruned(slots: readonly Slot[], flags: boolean[], stub: (slot: Slot) => number, raw: number, fixedRaw: number, rawBudget: number): number {
  const room = rawBudget - fixedRaw;
  const target = fixedRaw + Math.floor(room * PRUNE_TARGET);
  // The recent results: the newest, and those before it while they take at most RECENT_SHARE of the room.
  let recent = slots.length;
  for (let kept = 0, any = false; recent > 0; recent--) {
    const slot = slots[recent - 1]!;
    if (flags[recent - 1]) continue;
    kept += estimateMessageTokens(slot.list[slot.index]!);
    if (any && kept > room * RECENT_SHARE) break;
    any = true;
  }
  const order = [...Array.from({ length: recent }, (_, k) => recent - 1 - k), ...Array.from({ length: slots.length - recent }, (_, k) => recent + k)];
  for (const i of order) {
    if (raw <= target) break;
    if (flags[i]) continue;
    flags[i] = true;
    raw -= stub(slots[i]!);
  }
  return raw;
}

/** A copy of `list` with each tool result cut to `share` tokens (step 1); records the calls by id in `calls`. */
export function capped(list: readonly ChatMessage[], share: number, calls: Map<string, ChatToolCall>, notes: CutNotes | undefined): ChatMessage[] {
  return list.map((m) => {
    if (m.role === 'assistant') for (const call of m.tool_calls ?? []) calls.set(call.id, call);
    if (m.role !== 'tool') return m;
    const content = cutText(m.content, share, toolResultNote(noteOf(calls.get(m.tool_call_id), notes)));
    return content === m.content ? m : { ...m, content };
  });
}

/** Index of the assistant message of `list` that made call `id`; -1 when none did. */
const callIndex = (list: readonly ChatMessage[], id: string) => list.findIndex((m) => m.role === 'assistant' && m.tool_calls?.some((call) => call.id === id));

/** Shortens the long arguments of call `id` in `list[at]`, the assistant message that made it ({@link callIndex}; -1: none). */
function shortenCallAt(list: ChatMessage[], at: number, id: string): void {
  const message = list[at];
  if (message?.role !== 'assistant' || !message.tool_calls) return;
  list[at] = { ...message, tool_calls: message.tool_calls.map((call) => (call.id === id ? shortenedCall(call) : call)) };
}

/** The cut note of the tool a call named. */
function noteOf(call: ChatToolCall | undefined, notes: CutNotes | undefined): CutNote | undefined {
  return call && notes ? notes(call.function.name) : undefined;
}

/**
 * Cuts the current step's tool results so that the step takes at most `room` tokens: each result
 * gets an equal share of what its assistant message leaves, a result under its share giving the
 * rest to the others. Returns the step's new size (over `room` when its other messages are).
 */
export function shareCurrent(step: ChatMessage[], room: number, calls: Map<string, ChatToolCall>, notes: CutNotes | undefined): number {
  const results = step.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'tool');
  let left = room - sumTokens(step.filter((m) => m.role !== 'tool'));
  const order = [...results].sort((a, b) => estimateMessageTokens(a.m) - estimateMessageTokens(b.m));
  order.forEach(({ m, i }, k) => {
    const each = Math.max(0, Math.floor(left / (order.length - k)));
    const tool = m as Extract<ChatMessage, { role: 'tool' }>;
    const allowance = Math.max(0, each - (estimateMessageTokens(tool) - estimateMessageTokens({ ...tool, content: '' })) - 2);
    const content = cutText(tool.content, allowance, toolResultNote(noteOf(calls.get(tool.tool_call_id), notes)));
    step[i] = { ...tool, content };
    left -= estimateMessageTokens(step[i]!);
  });
  return sumTokens(step);
}
