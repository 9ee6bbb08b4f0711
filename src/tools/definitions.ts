/**
 * The built-in tools as data: their parameters (one list that yields both the JSON Schema sent
 * in the request's `tools` array and the words of the argument errors given back to the model),
 * their ACP `kind`, and which permission they need.
 *
 * Names match `^[a-zA-Z0-9_-]{1,64}$`; every `parameters` is an `object` schema with `required`
 * listed and no `strict` (several providers reject or ignore it). Descriptions are kept short:
 * small local models read them on every request.
 */
import type { ToolKind } from '@agentclientprotocol/sdk/unstable';
import type { BuiltinToolName } from './tool-types.js';
import { PLAN_TOOL_NAME } from './plan-tool.js';

/** One parameter of a built-in tool. */
export interface ParameterSpec {
  /** The property name in the arguments object. */
  name: string;
  /** JSON type. `integer` values are whole numbers ≥ `minimum` when given. */
  type: 'string' | 'integer' | 'boolean';
  /** True when the model must send it. */
  required: boolean;
  /** The JSON Schema `description` the model reads. */
  description: string;
  /** A few words for argument errors, after the type: `"offset" (integer, 1-based line)`. */
  note?: string;
  /** Smallest accepted value for integers (checked by us; not sent in the schema). */
  minimum?: number;
}

/**
 * What a permission check needs to know about a tool: `edit` (changes files), `execute` (runs
 * commands), `fetch` (reaches the network: changes nothing here, but asks in `ask`-like modes) or nothing.
 */
export type ToolMutation = 'edit' | 'execute' | 'fetch' | false;

/** A built-in tool: its request schema source, how the client shows it, what permission it needs. */
export interface BuiltinToolDefinition {
  name: BuiltinToolName;
  /** The function `description` the model reads. */
  description: string;
  /** ACP `ToolKind` of the `tool_call`. */
  kind: ToolKind;
  /** The permission the call needs; `false` for read-only tools. */
  mutates: ToolMutation;
  /** Parameters in the order they are listed to the model. */
  params: readonly ParameterSpec[];
}

/** One entry of the Chat Completions request's `tools` array. */
export interface ChatToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, { type: ParameterSpec['type']; description: string }>;
      required: string[];
    };
  };
}

const pathParam = (description: string, required = true): ParameterSpec => ({ name: 'path', type: 'string', required, description });

/** The built-in tools, in the order they are offered. */
export const BUILTIN_TOOLS: readonly BuiltinToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a text file. Each line comes as "<number><TAB><text>"; the numbers are not part of the file. Long files are cut: use offset and limit to page.',
    kind: 'read',
    mutates: false,
    params: [
      pathParam('File path, absolute or relative to the working directory.'),
      { name: 'offset', type: 'integer', required: false, minimum: 1, description: 'First line to read, 1-based. Default 1.', note: '1-based line' },
      { name: 'limit', type: 'integer', required: false, minimum: 1, description: 'Number of lines to read. Default: to the end.', note: 'lines' },
    ],
  },
  {
    name: 'write_file',
    description: 'Create a file or replace its whole content. Parent directories are created. Prefer edit_file to change part of a file.',
    kind: 'edit',
    mutates: 'edit',
    params: [
      pathParam('File path, absolute or relative to the working directory.'),
      { name: 'content', type: 'string', required: true, description: 'The complete new file content.' },
    ],
  },
  {
    name: 'edit_file',
    description: 'Replace exact text in a file. old_string must match the file exactly (whitespace and indentation too) and only once, unless replace_all is true.',
    kind: 'edit',
    mutates: 'edit',
    params: [
      pathParam('File path, absolute or relative to the working directory.'),
      { name: 'old_string', type: 'string', required: true, description: 'The exact text to replace, without line numbers.' },
      { name: 'new_string', type: 'string', required: true, description: 'The text to put instead.' },
      { name: 'replace_all', type: 'boolean', required: false, description: 'Replace every occurrence. Default false.' },
    ],
  },
  {
    name: 'list_directory',
    description: 'List a directory. Directories end with "/". Skips .git and what .gitignore ignores.',
    kind: 'search',
    mutates: false,
    params: [pathParam('Directory, absolute or relative to the working directory. Default: the working directory.', false)],
  },
  {
    name: 'search_files',
    description: 'Search file contents with a regex, or list files by glob alone. Prints "path:line: text" per match. Skips .git, hidden, ignored and binary files.',
    kind: 'search',
    mutates: false,
    params: [
      { name: 'pattern', type: 'string', required: false, description: 'Regex, e.g. "function\\s+main"; start with (?i) to ignore case. No look-around or back-references.' },
      pathParam('Directory or file to search. Default: the working directory.', false),
      { name: 'glob', type: 'string', required: false, description: 'Only files whose path matches, e.g. "*.ts" or "src/**/*.py".' },
    ],
  },
  {
    name: 'run_command',
    description: 'Run a shell command and return its exit code and output (stdout and stderr together). No input can be typed: do not start interactive programs.',
    kind: 'execute',
    mutates: 'execute',
    params: [
      { name: 'command', type: 'string', required: true, description: 'The shell command line.' },
      { name: 'cwd', type: 'string', required: false, description: 'Working directory. Default: the session working directory.' },
      { name: 'timeout_ms', type: 'integer', required: false, minimum: 1, description: 'Time limit in milliseconds. Default 120000, at most 600000.', note: 'milliseconds' },
    ],
  },
  {
    name: 'fetch_url',
    description: 'GET a web page or file over http(s). HTML comes back as Markdown.',
    kind: 'fetch',
    mutates: 'fetch',
    params: [{ name: 'url', type: 'string', required: true, description: 'The http or https URL.' }],
  },
];

const byName = new Map<string, BuiltinToolDefinition>(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/** The built-in tool names, the plan tool's included (the names MCP tools are named apart from). */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([...byName.keys(), PLAN_TOOL_NAME]);

/** True when `name` is one of the built-in tools defined here (the plan tool is not: it has its own module). */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return byName.has(name);
}

/**
 * The definition of a built-in tool.
 * @throws {Error} when `name` is not a built-in tool (a bug of the caller: check with {@link isBuiltinToolName}).
 */
export function builtinTool(name: BuiltinToolName): BuiltinToolDefinition {
  const tool = byName.get(name);
  if (!tool) throw new Error(`not a built-in tool: ${name}`);
  return tool;
}

/** The request `tools` entry for one definition. */
export function toChatTool(tool: BuiltinToolDefinition): ChatToolDefinition {
  const properties: ChatToolDefinition['function']['parameters']['properties'] = {};
  for (const p of tool.params) {
    // No `minimum` on the wire: some OpenAI-compatible gateways reject schema keywords beyond
    // type/description/properties/required; the descriptions say "1-based" and the check is ours.
    properties[p.name] = { type: p.type, description: p.description };
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { type: 'object', properties, required: tool.params.filter((p) => p.required).map((p) => p.name) },
    },
  };
}

/**
 * The request `tools` entries for the built-in tools, in offering order.
 * @param names - which tools to include; default all (pass {@link readOnlyToolNames}() for the read-only mode).
 */
export function builtinChatTools(names: readonly BuiltinToolName[] = BUILTIN_TOOLS.map((t) => t.name)): ChatToolDefinition[] {
  return BUILTIN_TOOLS.filter((t) => names.includes(t.name)).map(toChatTool);
}

/**
 * The tools that change nothing: `read_file`, `list_directory`, `search_files`, and `fetch_url`
 * (which asks for permission in the modes that offer only these).
 */
export function readOnlyToolNames(): BuiltinToolName[] {
  return BUILTIN_TOOLS.filter((t) => t.mutates === false || t.mutates === 'fetch').map((t) => t.name);
}
