/**
 * Ollama's native chat stream (`POST /api/chat`, one JSON object per line) read as the same
 * {@link SseItem}s a Chat Completions stream gives, so that the chat stream accumulator and everything
 * above it do not know which wire answered.
 *
 * A line (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion,
 * api/types.go `ChatResponse`):
 * `{"model","created_at","message":{"role","content","thinking"?,"tool_calls"?},"done":false}`;
 * the last one has `"done":true`, `done_reason` (`stop`, `length`), `prompt_eval_count` and
 * `eval_count`. An error, before or during the stream, is a line `{"error":"…"}`
 * (docs/api/errors.mdx). Tool calls arrive whole, `function.arguments` a JSON object, with `id`
 * and `function.index` in recent versions.
 *
 * Mapping, one chunk per line: `content` → `delta.content`; `thinking` → `delta.reasoning`; each
 * tool call → one complete `tool_calls` entry of its own position (arguments as JSON text; the id when sent, else
 * none: the agent loop gives id-less calls one); `done` → `finish_reason` (`length` stays
 * `length`; `stop` after tool calls becomes `tool_calls`, as Ollama's own `/v1` says) and
 * `usage` (`prompt_eval_count` → `prompt_tokens`, `eval_count` → `completion_tokens`).
 */
import { isRecord } from '../shared/json-value.js';
import { createLineFramer, StreamBrokenError } from './ndjson.js';
import type { ChatCompletionChunk, ChatDelta, ChatToolCallDelta, ChatUsage } from './openai-types.js';
import type { SseItem } from './sse-items.js';

/**
 * Reads the lines of one answer, in order; keeps the count of tool calls and whether `done` came.
 * @internal the reader of NDJSON lines, checked on lines without a server.
 */
export class OllamaChatReader {
  private calls = 0;
  private ended = false;

  /** True once the final `done: true` line was read. */
  get done(): boolean {
    return this.ended;
  }

  /**
   * The items of one line (possibly none: an empty message, or anything after `done`).
   * @throws {StreamBrokenError} when the line is not a JSON object.
   */
  line(text: string): SseItem[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StreamBrokenError('a line of the stream is not JSON');
    }
    if (!isRecord(parsed)) throw new StreamBrokenError('a line of the stream is not a JSON object');
    if (this.ended) return [];
    const error = parsed['error'];
    if (typeof error === 'string') return [{ kind: 'error', error: { message: error } }];
    if (isRecord(error)) return [{ kind: 'error', error }];
    const message = isRecord(parsed['message']) ? parsed['message'] : {};
    const delta: ChatDelta = {};
    const thinking = message['thinking'];
    if (typeof thinking === 'string' && thinking.length > 0) delta.reasoning = thinking;
    const content = message['content'];
    if (typeof content === 'string' && content.length > 0) delta.content = content;
    const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
    const deltas: ChatToolCallDelta[] = [];
    for (const call of calls) if (isRecord(call)) deltas.push(this.toolCall(call));
    if (deltas.length > 0) delta.tool_calls = deltas;
    const done = parsed['done'] === true;
    if (!done && Object.keys(delta).length === 0) return [];
    const chunk: ChatCompletionChunk = { choices: [{ index: 0, delta, ...(done ? { finish_reason: this.finishReason(parsed['done_reason']) } : {}) }] };
    if (done) {
      this.ended = true;
      Object.assign(chunk, usageOf(parsed));
      // Kept on the chunk as Ollama names it: the time the answer waited for the model to load, in ns.
      if (typeof parsed['load_duration'] === 'number' && Number.isFinite(parsed['load_duration']))
        Object.assign(chunk, { load_duration: parsed['load_duration'] });
    }
    return [{ kind: 'chunk', chunk }];
  }

  private toolCall(call: Record<string, unknown>): ChatToolCallDelta {
    const fn = isRecord(call['function']) ? call['function'] : {};
    const args = fn['arguments'];
    const delta: ChatToolCallDelta = {
      index: this.calls++,
      type: 'function',
      function: { name: typeof fn['name'] === 'string' ? fn['name'] : '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
    if (typeof call['id'] === 'string' && call['id'] !== '') delta.id = call['id'];
    return delta;
  }

  private finishReason(reason: unknown): string {
    if (reason === 'length') return 'length';
    if (typeof reason === 'string' && reason !== '' && reason !== 'stop' && reason !== 'load' && reason !== 'unload') return reason;
    return this.calls > 0 ? 'tool_calls' : 'stop';
  }
}

/**
 * How long the answer waited for the model to load, in ms: Ollama's `load_duration` (ns) of its
 * final line (`/api/chat`, https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion),
 * kept on the last chunk; also read where an OpenAI-compatible answer carries it. `undefined` when absent.
 */
export function loadMsOf(items: readonly SseItem[]): number | undefined {
  for (const item of items) {
    if (item.kind !== 'chunk') continue;
    const ns = (item.chunk as unknown as Record<string, unknown>)['load_duration'];
    if (typeof ns === 'number' && Number.isFinite(ns) && ns >= 0) return ns / 1e6;
  }
  return undefined;
}

/** `{usage}` of a final line, when it has token counts. */
function usageOf(line: Record<string, unknown>): { usage?: ChatUsage } {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  const prompt = count(line['prompt_eval_count']);
  const completion = count(line['eval_count']);
  if (prompt === undefined && completion === undefined) return {};
  return { usage: { prompt_tokens: prompt ?? 0, completion_tokens: completion ?? 0, total_tokens: (prompt ?? 0) + (completion ?? 0) } };
}

/** Bytes of an `/api/chat` answer in, items out: the chat client's decoder for this wire. */
export interface OllamaChatDecoder {
  /** @throws {StreamBrokenError} for a line that is not JSON; `LineTooLargeError` for an oversized line. */
  push(bytes: Uint8Array): SseItem[];
  /** @throws {StreamBrokenError} when the stream ended without its `done` line (and no error line). */
  end(): SseItem[];
}

/** A decoder for one `/api/chat` answer. @param maxLineBytes - longest line, in bytes */
export function createOllamaChatDecoder(maxLineBytes?: number): OllamaChatDecoder {
  const framer = createLineFramer(maxLineBytes);
  const reader = new OllamaChatReader();
  let failed = false;
  const read = (lines: string[]): SseItem[] => {
    const items: SseItem[] = [];
    for (const line of lines) {
      for (const item of reader.line(line)) {
        if (item.kind === 'error') failed = true;
        items.push(item);
      }
    }
    return items;
  };
  return {
    push: (bytes) => read(framer.push(bytes)),
    end() {
      const items = read(framer.end());
      if (!reader.done && !failed) throw new StreamBrokenError('its final "done" line never came');
      return items;
    },
  };
}
