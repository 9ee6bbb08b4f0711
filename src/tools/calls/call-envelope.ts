/**
 * A whole call sent where its arguments belong: some models put the OpenAI call shape
 * (`{"type": "function", "function": {"name": …, "arguments": {…}}}`) or a `{name, arguments}`
 * envelope (Hermes, Qwen, Llama 3.x write calls so; `parameters` for `arguments` is Llama's spelling)
 * inside the `arguments` of a structured call. The envelope is taken off only when its name stands
 * for the tool called and the tool has no parameter of the envelope's own key, so a tool whose
 * arguments really are `{name, arguments}` keeps them. Pure.
 *
 * Source: the call shapes in the Chat Completions reference
 * https://platform.openai.com/docs/api-reference/chat/object (`tool_calls[].function`), and the
 * Hermes/Llama formats vLLM's tool parsers read (`vllm/entrypoints/openai/tool_parsers/`).
 */
import { isRecord } from '../../shared/json-value.js';

/** The keys an envelope may have besides its name and arguments. */
const ENVELOPE_EXTRAS = new Set(['id', 'type']);
/** The keys its arguments may come under. */
const ARGUMENT_KEYS = ['arguments', 'parameters'] as const;

/** An envelope found: its name and its arguments (an object, or JSON text to read). */
export interface CallEnvelope {
  name: string;
  arguments: unknown;
}

/**
 * The call `value` wraps, or undefined when it is not an envelope.
 * @param parameters - the tool's own parameter names: an envelope key among them means no envelope.
 */
export function findEnvelope(value: unknown, parameters: readonly string[]): CallEnvelope | undefined {
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.some((key) => parameters.includes(key))) return undefined;
  const inner = isRecord(value['function']) && (value['type'] === undefined || value['type'] === 'function') ? value['function'] : value;
  if (inner !== value && keys.some((key) => key !== 'function' && !ENVELOPE_EXTRAS.has(key))) return undefined;
  const name = inner['name'];
  const argumentKey = ARGUMENT_KEYS.find((key) => key in inner);
  if (typeof name !== 'string' || argumentKey === undefined) return undefined;
  if (Object.keys(inner).some((key) => key !== 'name' && key !== argumentKey && !ENVELOPE_EXTRAS.has(key))) return undefined;
  const args = inner[argumentKey];
  return isRecord(args) || typeof args === 'string' ? { name, arguments: args } : undefined;
}
