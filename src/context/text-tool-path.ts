/**
 * The text path: a request for a server whose chat template cannot take tools (Gemma 3's own
 * template on llama.cpp, which drops `tools` and raises "Conversation roles must alternate" on a
 * `tool` message). The tools are described at the end of the system message, earlier calls are
 * written back as the `<tool_call>` blocks `text-tool-calls.ts` reads, and each step's results
 * go back as one user message, so no message has the `tool` role or `tool_calls`, and user and
 * assistant messages alternate (what such templates demand). The conversation itself stays in
 * its structured form; only the request is spelled this way. Pure.
 *
 * The call form is Hermes / Qwen2.5's (`<tool_call>{"name", "arguments"}</tool_call>`), the one
 * small models know best and the one llama.cpp's own parser reads.
 */
import type { ChatMessage, ChatRequestContentPart, ChatToolCall } from '../openai/openai-types.js';

/** A tool definition as a request carries it. */
export interface TextPathTool {
  type: 'function';
  function: { name: string; description?: string | undefined; parameters?: unknown };
}

/**
 * The block a call is written as: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`.
 * @internal a pure step whose text the reader of text tool calls must parse back (a round trip).
 */
export function toolCallBlock(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args || '{}');
  } catch {
    parsed = args;
  }
  return `<tool_call>\n${JSON.stringify({ name, arguments: parsed })}\n</tool_call>`;
}

/** A call of `tool` for the instructions: its required parameters with placeholder values of their types. */
function exampleCall(tool: TextPathTool | undefined): string {
  if (!tool) return toolCallBlock('tool_name', '{}');
  const parameters = (tool.function.parameters ?? {}) as { properties?: Record<string, { type?: unknown }>; required?: unknown };
  const required = Array.isArray(parameters.required) ? parameters.required.filter((name): name is string => typeof name === 'string') : [];
  const placeholder = (type: unknown) => (type === 'integer' || type === 'number' ? 1 : type === 'boolean' ? true : '...');
  const args = Object.fromEntries(required.map((name) => [name, placeholder(parameters.properties?.[name]?.type)]));
  return toolCallBlock(tool.function.name, JSON.stringify(args));
}

/**
 * The part of the system message that describes the tools: how to call one, then each tool with
 * its description and JSON Schema parameters, in the order given.
 * @internal the tests state the expected system message with it rather than a copy of its wording.
 */
export function textToolInstructions(tools: readonly TextPathTool[]): string {
  const example = exampleCall(tools[0]);
  const list = tools.map(
    (tool) =>
      `- ${tool.function.name}: ${(tool.function.description ?? '').trim()} Parameters: ` +
      `${JSON.stringify(tool.function.parameters ?? { type: 'object', properties: {} })}`,
  );
  return [
    'To call a tool, answer with only a block like this (several blocks for several calls):',
    example,
    'Each result comes back in the next user message, starting "Result of". The tools:',
    ...list,
  ].join('\n');
}

/**
 * `messages` spelled for the text path (see the module comment): the tool instructions appended
 * to the system message (or a system message of their own; none when `tools` is empty, e.g. a
 * summary request whose history has tool calls), assistant `tool_calls` as text
 * blocks after the message's text, `tool` results as `Result of NAME:` user messages, and
 * consecutive user messages joined into one.
 */
export function toTextToolPath(messages: readonly ChatMessage[], tools: readonly TextPathTool[]): ChatMessage[] {
  const instructions = tools.length > 0 ? textToolInstructions(tools) : '';
  const names = new Map<string, string>();
  const out: ChatMessage[] = [];
  const first = messages[0];
  if (first?.role === 'system') out.push({ role: 'system', content: instructions ? `${first.content}\n\n${instructions}` : first.content });
  else if (instructions) out.push({ role: 'system', content: instructions });
  for (const message of first?.role === 'system' ? messages.slice(1) : messages) {
    if (message.role === 'assistant') {
      const calls: ChatToolCall[] = message.tool_calls ?? [];
      for (const call of calls) names.set(call.id, call.function.name);
      const text = [message.content ?? '', ...calls.map((call) => toolCallBlock(call.function.name, call.function.arguments))].filter(Boolean).join('\n');
      const { tool_calls: _calls, ...rest } = message;
      out.push({ ...rest, content: text });
    } else if (message.role === 'tool') {
      pushUserMessage(out, `Result of ${names.get(message.tool_call_id) ?? 'the tool call'}:\n${message.content}`);
    } else if (message.role === 'user') {
      pushUserMessage(out, message.content);
    } else {
      out.push(message);
    }
  }
  return out;
}

/**
 * Appends a user message to `out`, joined to the one before when that is a user message too
 * (set apart by a blank line), so user and assistant messages keep alternating.
 */
export function pushUserMessage(out: ChatMessage[], content: string | ChatRequestContentPart[]): void {
  const last = out.at(-1);
  if (last?.role !== 'user') {
    out.push({ role: 'user', content });
    return;
  }
  if (typeof last.content === 'string' && typeof content === 'string') {
    out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${content}` };
    return;
  }
  const parts = (c: string | ChatRequestContentPart[]): ChatRequestContentPart[] => (typeof c === 'string' ? [{ type: 'text', text: c }] : c);
  out[out.length - 1] = { role: 'user', content: [...parts(last.content), { type: 'text', text: '\n\n' }, ...parts(content)] };
}
