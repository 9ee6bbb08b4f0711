/**
 * How a call read from text should have been written, for the message that refuses it: an example
 * call of the tool (its required parameters with placeholders of their types) in the format the
 * model used, or in the text path's own format (Hermes `<tool_call>` blocks) when the request
 * taught that one. Pure.
 */
import { toolCallBlock } from '../../../context/text-tool-path.js';
import type { TextCallFormat } from './text-call.js';

/** A placeholder of a JSON Schema type: 1 for numbers, true for booleans, [] and {} for arrays and objects, "..." else. */
function placeholder(schema: unknown): unknown {
  const type = typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return '...';
}

/** The required parameters of a tool's JSON Schema `parameters`, each with a placeholder value. */
function exampleArguments(parameters: unknown): Record<string, unknown> {
  const p = (typeof parameters === 'object' && parameters !== null ? parameters : {}) as { properties?: Record<string, unknown>; required?: unknown };
  const required = Array.isArray(p.required) ? p.required.filter((name): name is string => typeof name === 'string') : [];
  return Object.fromEntries(required.map((name) => [name, placeholder(p.properties?.[name])]));
}

const pythonValue = (value: unknown): string =>
  typeof value === 'string' ? `'${value}'` : value === true ? 'True' : Array.isArray(value) ? '[]' : typeof value === 'object' ? '{}' : String(value);

/**
 * An example call of `name` written in `format` (`hermes` for formats without a writer of their own).
 * @param parameters - the tool's JSON Schema `parameters` (its required ones are shown).
 * @internal the tests read every format's example back through the reader (a round trip).
 */
export function exampleCall(format: TextCallFormat, name: string, parameters: unknown): string {
  const args = exampleArguments(parameters);
  const json = JSON.stringify(args);
  const entries = Object.entries(args);
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  switch (format) {
    case 'qwen-xml':
    case 'minimax':
      return `<tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>\n${text(v)}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
    case 'glm':
      return `<tool_call>${name}\n${entries.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${text(v)}</arg_value>\n`).join('')}</tool_call>`;
    case 'mistral-tokens':
      return `[TOOL_CALLS]${name}[ARGS]${json}`;
    case 'harmony':
      return `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}<|call|>`;
    case 'pythonic':
      return `[${name}(${entries.map(([k, v]) => `${k}=${pythonValue(v)}`).join(', ')})]`;
    case 'deepseek-tokens':
      return `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    case 'llama':
      return `<|python_tag|>${JSON.stringify({ name, parameters: args })}`;
    case 'gemma':
      return `<|tool_call>call:${name}{${entries.map(([k, v]) => `${k}:${typeof v === 'string' ? `<|"|>${v}<|"|>` : text(v)}`).join(',')}}<tool_call|>`;
    case 'dsml':
      return `<｜DSML｜tool_calls>\n<｜DSML｜invoke name="${name}">\n${entries
        .map(([k, v]) => `<｜DSML｜parameter name="${k}" string="${typeof v === 'string'}">${text(v)}</｜DSML｜parameter>\n`)
        .join('')}</｜DSML｜invoke>\n</｜DSML｜tool_calls>`;
    case 'react':
      return `Action: ${name}\nAction Input: ${json}`;
    case 'granite':
      return `<|tool_call|>${JSON.stringify([{ name, arguments: args }])}`;
    default:
      return toolCallBlock(name, json);
  }
}

/**
 * The sentence that ends the refusal of a call read from text: how to write it.
 * @param textPath - the request taught the text path's format: the example is written in it.
 */
export function callHint(format: TextCallFormat, name: string, parameters: unknown, textPath: boolean): string {
  return `Write the call as:\n${exampleCall(textPath ? 'hermes' : format, name, parameters)}`;
}
