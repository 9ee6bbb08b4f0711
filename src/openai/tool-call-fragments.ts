/**
 * Tool calls assembled from the fragments of one streamed response. Fragments are grouped by
 * `index`; without an index by `id`; without either by their position in the delta's
 * `tool_calls` array (the call last seen at that position). A non-empty `id` that differs from the
 * non-empty id of the call at the same `index` is another call (Gemini through gateways sends
 * every parallel call as `index: 0`: su-kaka/gcli2api#406, NousResearch/hermes-agent#12930): the
 * fragment goes to the call with that id, or starts a new one, which then owns the index. A
 * call's id and name are the first non-empty values seen (Alibaba sends `id: ""` on
 * continuations); arguments are concatenated; `extra_content` objects are kept, merged shallowly
 * with the first value of a key winning. Fields of the wrong type are ignored.
 */
import type { ChatToolCallDelta } from './openai-types.js';
import { isRecord } from '../shared/json-value.js';
import { joinAll } from './text-parts.js';

/** A tool call being assembled; `ordinal` is its position in the result. */
type ToolEntry = { ordinal: number; id: string; name: string; args: string[]; extra?: Record<string, unknown> };

/** What a fragment tells: the call's ordinal (`index`), its id and name as known so far, this fragment's arguments. */
interface ToolCallFragment {
  index: number;
  id?: string;
  name?: string;
  argumentsDelta: string;
}

/** The tool calls of one response, in order of first appearance. */
export class ToolCallFragments {
  private readonly tools: ToolEntry[] = [];
  private readonly byIndex = new Map<number, ToolEntry>();
  private readonly byId = new Map<string, ToolEntry>();
  private readonly byPosition = new Map<number, ToolEntry>();

  /**
   * Adds one fragment, `position` being its place in the delta's `tool_calls` array. Returns what
   * the `tool_call` event carries: the call's ordinal, its id and name as known so far (absent
   * until seen) and this fragment's arguments; `undefined` when the fragment changed nothing.
   */
  add(call: ChatToolCallDelta, position: number): ToolCallFragment | undefined {
    const rawId: unknown = call.id;
    const id = typeof rawId === 'string' ? rawId : typeof rawId === 'number' ? String(rawId) : '';
    const index = typeof call.index === 'number' ? call.index : undefined;
    let entry = index !== undefined ? this.byIndex.get(index) : id !== '' ? this.byId.get(id) : this.byPosition.get(position);
    // Same index, another id: another call (Gemini via gateways reuses index 0).
    if (entry !== undefined && index !== undefined && id !== '' && entry.id !== '' && entry.id !== id) {
      entry = this.byId.get(id);
      if (entry !== undefined) this.byIndex.set(index, entry);
    }
    const isNew = entry === undefined;
    if (entry === undefined) {
      entry = { ordinal: this.tools.length, id: '', name: '', args: [] };
      this.tools.push(entry);
      if (index !== undefined) this.byIndex.set(index, entry);
    }
    this.byPosition.set(position, entry);
    if (id !== '' && !this.byId.has(id)) this.byId.set(id, entry);
    const fn = isRecord(call.function) ? call.function : undefined;
    const name = fn && typeof fn.name === 'string' ? fn.name : '';
    const changed = isNew || (entry.id === '' && id !== '') || (entry.name === '' && name !== '');
    if (entry.id === '') entry.id = id;
    if (entry.name === '') entry.name = name;
    const extra: unknown = call.extra_content;
    if (isRecord(extra)) entry.extra = entry.extra ? { ...extra, ...entry.extra } : { ...extra };
    const argumentsDelta = fn && typeof fn.arguments === 'string' ? fn.arguments : '';
    if (argumentsDelta.length > 0) entry.args.push(argumentsDelta);
    if (!changed && argumentsDelta.length === 0) return undefined;
    const fragment: ToolCallFragment = { index: entry.ordinal, argumentsDelta };
    if (entry.id !== '') fragment.id = entry.id;
    if (entry.name !== '') fragment.name = entry.name;
    return fragment;
  }

  /** The calls so far (`chat-stream-accumulator.ts` `ToolCallResult`: missing id or name `''`, `extra` only when sent). */
  results(): { id: string; name: string; arguments: string; extra?: Record<string, unknown> }[] {
    return this.tools.map((tool) => {
      const call: { id: string; name: string; arguments: string; extra?: Record<string, unknown> } = {
        id: tool.id,
        name: tool.name,
        arguments: joinAll(tool.args),
      };
      if (tool.extra) call.extra = tool.extra;
      return call;
    });
  }
}
