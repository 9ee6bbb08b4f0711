/**
 * The reader of tool calls written as text, bound to the tools of one request: what the loop uses
 * (through the door of `tools/`). It streams an answer's text through the screen and reads the calls
 * at the end, each as a streamed call would be given (name and arguments text), with what refusing
 * it rightly needs: `cut`, a `refusal` for a call that cannot run as written, and a `hint` saying
 * how to write it (in the model's own format, or on the text path in the format taught there).
 */
import type { ChatToolDefinition } from '../../tool.js';
import { resolveToolName } from '../tool-name-resolve.js';
import { callHint } from './call-hint.js';
import { formatForTemplate } from './formats/index.js';
import { placeholderProblem } from './placeholders.js';
import { readTextCalls } from './read-text-calls.js';
import { TextCallScreen } from './text-call-screen.js';

/** One call read from text, as the runner takes it. */
export interface ReadCall {
  name: string;
  arguments: string;
  /**
   * The text ended inside the call: it must not run. Not set by the reader, which words such a
   * call's `refusal` itself ("the answer stopped inside the call"); a caller may set it.
   */
  cut?: true;
  /** Why the call cannot run as written (the runner refuses it with this). */
  refusal?: string;
  /** How to write the call, ending a refusal; only for a tool that is offered (for another, the list of tools is the fix). */
  hint?: string;
  /** More of the answer follows the call: an answer stopped at its length limit did not stop inside it. */
  followed?: true;
}

/** The reader for one request's tools. */
interface TextCallReader {
  /** A fresh screen for one answer's text (see `text-call-screen.ts`). */
  screen(): Pick<TextCallScreen, 'push' | 'shownLength'>;
  /** The calls in a whole answer and the prose before them; `reasoning`: the text is the answer's reasoning (only markers make a call there). */
  read(text: string, reasoning?: boolean): { calls: ReadCall[]; prose: string };
}

/**
 * The offered tools as the reader knows them: each name with its parameters' schemas, and an MCP
 * tool also under its own name without the `<server>__` prefix when that name resolves to it
 * alone (a model writes the name the server gave it; `resolveToolName` is the one rule).
 */
function readerTools(definitions: readonly ChatToolDefinition[]): Map<string, Record<string, unknown>> {
  const names = definitions.map((tool) => tool.function.name);
  const tools = new Map(definitions.map((tool) => [tool.function.name, tool.function.parameters.properties]));
  for (const name of names) {
    const bare = name.slice(name.indexOf('__') + 2);
    if (bare !== name && !tools.has(bare) && resolveToolName(bare, names)?.name === name) tools.set(bare, tools.get(name)!);
  }
  return tools;
}

/**
 * The reader of calls written as text for the tools `definitions` offers.
 * @param textPath - the request is spelled for the text path (`context/text-tool-path.ts`): hints use its format.
 * @param template - the chat template the server names (llama.cpp `/props` `chat_template`, Ollama
 *   `/api/show` `template`), when known: its family's reader goes first (`formatForTemplate`).
 */
export function textCallReader(definitions: readonly ChatToolDefinition[], textPath = false, template?: string): TextCallReader {
  const names = definitions.map((tool) => tool.function.name);
  // MCP tools (named `<server>__<tool>`) get no loose match, as in the runner's resolution.
  const strict = new Set(names.filter((name) => name.includes('__')));
  const tools = readerTools(definitions);
  const parameters = new Map(definitions.map((tool) => [tool.function.name, tool.function.parameters]));
  const family = template === undefined ? undefined : formatForTemplate(template);
  const prefer = family && family.markers.length > 0 ? new Set(family.markers.map((m) => m.open)) : undefined;
  return {
    screen: () => new TextCallScreen([...tools.keys()]),
    read: (text, reasoning) => {
      const read = readTextCalls(text, tools, prefer ? { reasoning: reasoning === true, prefer } : { reasoning: reasoning === true });
      return {
        prose: read.prose,
        calls: read.calls.map((call, i): ReadCall => {
          const out: ReadCall = { name: call.name, arguments: call.arguments };
          const resolved = resolveToolName(call.name, names, strict)?.name;
          if (resolved) out.hint = callHint(call.format, resolved, parameters.get(resolved), textPath);
          // A call the answer stopped inside is refused in those words; the length limit is the loop's to name (`finish_reason: length`).
          if (call.cut) out.refusal = 'the answer stopped inside the call, so its arguments are incomplete';
          const problem = call.problem ?? (call.cut ? undefined : placeholderProblem(call.arguments));
          if (problem) out.refusal = problem;
          if (i < read.calls.length - 1 || read.followed) out.followed = true;
          return out;
        }),
      };
    },
  };
}
