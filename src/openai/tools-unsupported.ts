/**
 * Answers saying a model or server takes no tools at all, and what to drop so the chat still
 * works without them. `rejection.ts` turns this into a `drop` correction, which the chat client
 * applies and remembers per endpoint and model (`adaptive-params.ts`). Pure.
 */
import type { Correction } from './adaptive-params.js';

/**
 * The request parameters that ask for tool calling; dropped together when tools are not supported.
 * @internal the properties check every drop against this very list.
 */
export const TOOL_PARAMS: readonly string[] = ['tools', 'tool_choice', 'parallel_tool_calls'];

/**
 * Answers saying the model or the server takes no tools, with the statuses they come with, and
 * the parameters to drop (those of them present in the request). Sources (verbatim bodies in
 * `test/fixtures/http-400/`):
 * - Ollama 400 `registry.ollama.ai/library/gemma3:4b does not support tools` (louisho5/picobot#6;
 *   native API `{"error":"… does not support tools"}`, ollama/ollama#9680).
 * - vLLM 400 `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be
 *   set` (vllm-project/vllm#9986, langchain4j/langchain4j#3475); vLLM makes `auto` the default
 *   when tools are sent (`check_tool_usage` in `vllm/entrypoints/openai/protocol.py`), so
 *   dropping only `tool_choice` would not help.
 * - llama.cpp 500 `tools param requires --jinja flag` (containers/ramalama#988,
 *   giuseppe/git-chronicler#3) and, before tool support, 500 `Unsupported param: tools`
 *   (ggml-org/llama.cpp#10920).
 * - OpenRouter 404 `No endpoints found that support tool use.` (bobrware/bobrchat#60): no
 *   provider of the model takes tools; `…support the provided 'tool_choice' value` (zed#36094)
 *   drops `tool_choice` only.
 * @internal the properties decide from these rules which generated answers must drop the tools.
 */
export const TOOLS_UNSUPPORTED: ReadonlyArray<{ pattern: RegExp; statuses: readonly number[]; drop: readonly string[] }> = [
  { pattern: /does not support tools/i, statuses: [400], drop: TOOL_PARAMS },
  { pattern: /tool choice requires --enable-auto-tool-choice/i, statuses: [400], drop: TOOL_PARAMS },
  { pattern: /tools param requires --jinja/i, statuses: [400, 500], drop: TOOL_PARAMS },
  { pattern: /unsupported param:\s*['"\x60]?tools\b/i, statuses: [500], drop: TOOL_PARAMS },
  { pattern: /no endpoints found that support tool use/i, statuses: [404], drop: TOOL_PARAMS },
  { pattern: /no endpoints found that support the provided ['"\x60]?tool_choice/i, statuses: [404], drop: ['tool_choice'] },
];

/**
 * The tool parameters of `sent` to drop when the answer (`status`, `bodyText`) is one of
 * {@link TOOLS_UNSUPPORTED}, in {@link TOOL_PARAMS} order.
 * @returns `undefined` when the answer is not one of them, or names nothing that was sent
 */
export function unsupportedToolParams(status: number, bodyText: string, sent: Readonly<Record<string, unknown>>): string[] | undefined {
  const rule = TOOLS_UNSUPPORTED.find((r) => r.statuses.includes(status) && r.pattern.test(bodyText));
  const params = rule?.drop.filter((name) => name in sent) ?? [];
  return params.length > 0 ? params : undefined;
}

/**
 * Whether an HTTP answer says the chat template cannot render the request's tools or tool
 * messages (an `assistant` message with `tool_calls`, a `tool` message): the server then needs
 * the text path (tools described in the system prompt, calls read from the answer's text, results
 * sent back as user messages). Recognised by its shape, a 400 or 500 whose message blames the
 * template: "Unable to generate parser for this template", a Jinja exception "Conversation roles
 * must alternate user/assistant/…" (Gemma, Mistral and Llama 2 templates raise it on a `tool`
 * role), or any message naming the template together with roles or tools. Source: llama-server
 * 0.7.0 with Gemma 3's own template (`test/fixtures/llamacpp/template-error-gemma.json`), vLLM's
 * Jinja errors (vllm-project/vllm#9059 "Conversation roles must alternate"). Pure.
 */
export function isToolTemplateError(status: number, message: string): boolean {
  if (status !== 400 && status !== 422 && status !== 500) return false;
  if (/unable to generate parser for this template|roles must alternate/i.test(message)) return true;
  return (
    /\b(chat[ _-]?)?template\b/i.test(message) &&
    /\b(tools?|tool_calls?|roles?)\b/i.test(message) &&
    /\b(jinja|exception|error|failed|fails|cannot|can't|unsupported|not supported|does not support)\b/i.test(message)
  );
}

/**
 * Whether the corrections learned for an endpoint and model (`LearnedCorrections.get`) include
 * dropping `tools`: that pair takes no tools, and every request to it goes out without them.
 *
 * What the loop does then: it keeps reading text tool calls (`tools/calls/text/`) with the
 * names of the tools it would have offered. Such a model never sees the tool definitions through
 * the API, but it may still write a call the system prompt taught it (the issue's default
 * prompt says how to use the tools); a call is read where a format's own marker stands, or when
 * the whole answer is calls naming those tools, so an ordinary answer is never mistaken for one.
 */
export function toolsDropped(corrections: readonly Correction[]): boolean {
  return corrections.some((correction) => correction.kind === 'drop' && correction.params.includes('tools'));
}
