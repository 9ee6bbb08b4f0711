/**
 * Calls written in the ReAct form agent frameworks prompt for, which models tuned on their traces
 * write when given tools another way:
 * - LangChain's `Thought: …` / `Action: get_weather` / `Action Input: {"city": "Paris"}` (the
 *   input a JSON object, a fenced one, or a plain string for a tool of one parameter), often
 *   followed by an `Observation:` the model invented;
 * - smolagents' `Action:` followed by a JSON envelope (`{"name": …, "arguments": {…}}`, also
 *   `tool_name` / `tool_arguments`).
 * The form is prose-like, so it is a call only at the start of a line and only of an offered
 * tool. Pure.
 *
 * Sources: LangChain `ReActSingleInputOutputParser` (langchain/agents/output_parsers/react_single_input.py),
 * smolagents `ToolCallingAgent` prompt (src/smolagents/prompts/toolcalling_agent.yaml).
 */
import { isOffered } from './bare-calls.js';
import { envelopesFrom } from './json-envelope.js';
import type { MarkerRead, OfferedTools, TextCall } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/** The marker that opens a ReAct call (`formats/text-forms.ts`). */
const REACT_ACTION = 'Action:';

/** The arguments text of an `Action Input` that is a plain string: the tool's one parameter set to it, or the text as written (refused by the check). */
function plainInput(value: string, properties: Readonly<Record<string, unknown>> | undefined): string {
  const names = Object.keys(properties ?? {});
  if (value === '' || value === 'None' || value === 'null') return '{}';
  return names.length === 1 ? JSON.stringify({ [names[0]!]: value }) : value;
}

/** The ReAct call whose `Action:` stands at `at` (at a line's start), up to `limit`, or `undefined`. */
export function reactAt(text: string, at: number, limit: number, tools: OfferedTools): MarkerRead | undefined {
  // Only at a line's start (after a list mark or emphasis at most).
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  if (!/^[\s*>#-]*$/.test(text.slice(lineStart, at))) return undefined;
  let i = skipSpace(text, at + REACT_ACTION.length, limit);
  if (text[i] === '`' && text.startsWith('```', i)) {
    const fence = /^```[\w-]*[ \t]*\r?\n/.exec(text.slice(i, i + 20));
    if (fence) i = skipSpace(text, i + fence[0].length, limit);
  }
  if (text[i] === '{') {
    const read = envelopesFrom(text, i, limit, 'react', tools);
    const calls = read.refused ? [] : read.calls.slice(0, 1);
    if (calls.length === 0 || !calls.every((call) => isOffered(call.name, tools))) return undefined;
    let end = skipSpace(text, read.end, limit);
    if (text.startsWith('```', end)) end += 3;
    return { calls, end };
  }
  const head = /^[`"'*]*([A-Za-z_][\w.-]*)[`"'*]*[ \t]*\r?\n[\s*>-]*Action[ _]Input:[ \t]*/.exec(text.slice(i, Math.min(limit, i + 300)));
  if (!head || !isOffered(head[1]!, tools)) return undefined;
  const name = head[1]!;
  i += head[0].length;
  // An input on the lines below its label (`Action Input:` then a line break, as LangChain's parser reads it).
  const below = skipSpace(text, i, limit);
  if (below > i && text.lastIndexOf('\n', below - 1) >= i && /^[{"'`*]/.test(text.slice(below, below + 1))) i = below;
  // Emphasis before a JSON input (`Action Input: ** {…}`), as crewAI's parser tests show.
  const bold = /^\*+[ \t]*(?=\{)/.exec(text.slice(i, i + 20));
  if (bold) i += bold[0].length;
  const fence = /^```[\w-]*[ \t]*\r?\n/.exec(text.slice(i, i + 20));
  if (fence) i = skipSpace(text, i + fence[0].length, limit);
  const call: TextCall = { name, arguments: '{}', format: 'react' };
  let end: number;
  if (text[i] === '{') {
    const span = valueSpan(text, i, limit);
    call.arguments = text.slice(i, span.end);
    if (span.open) call.cut = true;
    end = span.end;
  } else if (text[i] === '"' || text[i] === "'") {
    const span = valueSpan(text, i, limit);
    if (span.open) call.cut = true;
    const raw = text.slice(i + 1, span.open ? limit : span.end - 1);
    call.arguments = plainInput(raw, tools.get(name));
    end = span.end;
  } else {
    const eol = text.indexOf('\n', i);
    end = eol < 0 || eol > limit ? limit : eol;
    const value = text.slice(i, end).trim();
    call.arguments = plainInput(value, tools.get(name));
    // Nothing but whitespace after the label to the answer's end: it stopped before its input, not at
    // an empty one, unless the tool takes no parameters (a server stops at the `Observation:` after it).
    const takesInput = Object.keys(tools.get(name) ?? {}).length > 0;
    if (value === '' && takesInput && skipSpace(text, i) === text.length) call.cut = true;
  }
  if (fence) {
    const after = skipSpace(text, end, limit);
    if (text.startsWith('```', after)) end = after + 3;
  }
  return { calls: [call], end };
}
