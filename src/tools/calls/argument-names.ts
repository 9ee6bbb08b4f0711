/**
 * Parameter names as models really write them, mapped onto a tool's own: another case, camel-,
 * snake- or kebab-case of one of its parameters, an alias from its module's table (built-in tools),
 * and `path`/`file_path`/`filepath` for one another when the tool has exactly one of them. The
 * renaming step of `check-arguments.ts`. Pure.
 *
 * Real spellings: `file_path` and `old_string`/`new_string` are Claude Code's Edit parameters,
 * `filePath`/`oldString`/`newString` opencode's, `old_str`/`new_str` Anthropic's text editor tool's
 * (`str_replace_based_edit_tool`), `path`+`line` goose's read; a model trained on one agent's
 * tools calls ours, or an MCP server's, with those names.
 */

/** Alias → the tool's own parameter name. Lookups also ignore case, `_`, `-` (so `oldString` finds `old_string`). */
export type AliasTable = Readonly<Record<string, string>>;

/** What {@link normaliseParameterNames} did: the renamed keys, and the keys that name no parameter. */
export interface NormalisedNames {
  value: Record<string, unknown>;
  renamed: [from: string, to: string][];
  /** Keys that name no parameter, or another spelling of one also given: left out of `value` unless kept. */
  ignored: string[];
}

/** The names one file path goes by; a tool with exactly one of them takes the others for it. */
const PATH_NAMES = ['path', 'file_path', 'filepath'];

/**
 * A name with case, `_`, `-`, `.` and spaces ignored: `readFile`, `Read-File`, `READ_FILE` and
 * `read file` all become `readfile` (tool names and parameter names alike).
 */
export function looseName(name: string): string {
  return name.toLowerCase().replace(/[-_\s.]/g, '');
}

/**
 * `input` with its keys spelled the tool's way: a parameter's own name is kept; another spelling of
 * one or an alias is renamed, unless the parameter was also given (then it is ignored); any other
 * key is ignored, and kept as it is when `keepUnknown` (an MCP server decides about those). Keys
 * whose value is `null` or absent are never renamed (they say nothing).
 * @param known - the tool's parameter names.
 */
export function normaliseParameterNames(
  input: Readonly<Record<string, unknown>>,
  known: readonly string[],
  aliases: AliasTable = {},
  keepUnknown = false,
): NormalisedNames {
  const byLoose = new Map<string, string>();
  for (const name of known) byLoose.set(looseName(name), name);
  for (const [alias, name] of Object.entries(aliases)) if (!byLoose.has(looseName(alias))) byLoose.set(looseName(alias), name);
  const paths = known.filter((name) => PATH_NAMES.includes(name));
  if (paths.length === 1) for (const name of PATH_NAMES) if (!byLoose.has(looseName(name))) byLoose.set(looseName(name), paths[0]!);
  const value: Record<string, unknown> = {};
  const renamed: [string, string][] = [];
  const ignored: string[] = [];
  const given = (key: string) => input[key] !== undefined && input[key] !== null;
  const taken = new Set<string>();
  for (const key of Object.keys(input)) if (known.includes(key)) setOwn(value, key, input[key]);
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    const name = given(key) ? byLoose.get(looseName(key)) : undefined;
    if (name === undefined || given(name) || taken.has(name)) {
      ignored.push(key);
      if (keepUnknown && name === undefined) setOwn(value, key, input[key]);
      continue;
    }
    setOwn(value, name, input[key]);
    taken.add(name);
    renamed.push([key, name]);
  }
  return { value, renamed, ignored };
}

/** `object[key] = value` as an own property, whatever the key (`__proto__` included, as `JSON.parse` makes it). */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
