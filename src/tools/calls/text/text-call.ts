/**
 * The shapes shared by the readers of tool calls written as text (`tools/calls/text/`): a call as
 * read, the family of formats it was written in, and what the readers are told about the offered
 * tools. Types only.
 */

/**
 * The format family a call was written in, named after the models that write it: `hermes`
 * (`<tool_call>{json}</tool_call>`: Qwen2.5, Hermes, Granite 4), `qwen-xml` (`<function=…>`
 * with `<parameter=…>`: Qwen3-Coder, Seed-OSS, Nemotron), `glm` (`<arg_key>`/`<arg_value>`),
 * `minimax` (`<invoke name=…>`), `mistral-tokens` (`[TOOL_CALLS]`), `llama` (`<|python_tag|>`,
 * `<function=…>{json}`), `pythonic` (`[f(a=1)]`: Llama 3.2/4, Gemma, LFM2, OLMo), `harmony`
 * (gpt-oss), `deepseek-tokens` (DeepSeek and Kimi's tokens), `granite` (`<|tool_call|>`: Granite 3,
 * Phi-4), `gemma` (Gemma 4's `<|tool_call>call:NAME{…}`), `dsml` (DeepSeek V3.2/V4's
 * `<｜DSML｜invoke>`), `react` (`Action:` / `Action Input:`, as LangChain and smolagents prompt),
 * `json` (a bare or fenced JSON envelope).
 */
export type TextCallFormat =
  | 'hermes'
  | 'qwen-xml'
  | 'glm'
  | 'minimax'
  | 'mistral-tokens'
  | 'llama'
  | 'pythonic'
  | 'harmony'
  | 'deepseek-tokens'
  | 'granite'
  | 'gemma'
  | 'dsml'
  | 'react'
  | 'json';

/** One tool call read from a model's text. */
export interface TextCall {
  /** The tool's name as written (resolved against the offered tools later, by the runner). */
  name: string;
  /**
   * The arguments: JSON object text, as written when the format carries JSON (so the argument
   * check repairs and reads the model's own characters), or built from the format's own fields
   * (XML parameters, Python keyword arguments).
   */
  arguments: string;
  format: TextCallFormat;
  /** True when the text ended inside this call: it must not run. */
  cut?: true;
  /** Why this call cannot run as written, in words for the model (e.g. positional arguments). */
  problem?: string;
}

/** What the readers know of the offered tools: each name with its JSON Schema `properties`. */
export type OfferedTools = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** What one reader found at a marker: the calls, and where the text after them starts. */
export interface MarkerRead {
  calls: TextCall[];
  end: number;
}
