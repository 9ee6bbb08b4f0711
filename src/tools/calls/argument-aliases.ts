/**
 * Parameter names as models really write them, mapped onto a tool's own, and values coerced to
 * the JSON Schema type a parameter declares: the pure steps `tools/calls/check-arguments.ts` runs. A
 * tool's alias table is data in its module (`aliases`).
 *
 * Real spellings: `file_path` and `old_string`/`new_string` are Claude Code's Edit parameters,
 * `filePath`/`oldString`/`newString` opencode's, `old_str`/`new_str` Anthropic's text editor tool's
 * (`str_replace_based_edit_tool`), `path`+`line` goose's read; a model trained on one agent's
 * tools calls ours with those names. Coercion: numbers and booleans sent as strings are common
 * in the output of small models (`"limit": "50"`; vLLM's hermes and qwen3-coder tool parsers
 * convert parameter values by the schema's type for the same reason).
 */

/** Alias → the tool's own parameter name. Lookups also ignore case, `_`, `-` (so `oldString` finds `old_string`). */
export type AliasTable = Readonly<Record<string, string>>;

/** What {@link normaliseParameterNames} did: the renamed keys and the unknown ones dropped. */
export interface NormalisedNames {
  value: Record<string, unknown>;
  renamed: [from: string, to: string][];
  ignored: string[];
}

/**
 * A name with case, `_`, `-`, `.` and spaces ignored: `readFile`, `Read-File`, `READ_FILE` and
 * `read file` all become `readfile` (tool names and parameter names alike).
 */
export function looseName(name: string): string {
  return name.toLowerCase().replace(/[-_\s.]/g, '');
}

/**
 * `input` with its keys spelled the tool's way: a known parameter is kept; another spelling of one
 * (case, camel, kebab) or an alias from `aliases` is renamed, unless the parameter was also given
 * (then the alias is dropped); anything else is dropped and listed in `ignored`. An alias that
 * would name two parameters cannot happen: the table maps each alias to one.
 * @param known - the tool's parameter names.
 */
export function normaliseParameterNames(input: Readonly<Record<string, unknown>>, known: readonly string[], aliases: AliasTable = {}): NormalisedNames {
  const byLoose = new Map<string, string>();
  for (const name of known) byLoose.set(looseName(name), name);
  for (const [alias, name] of Object.entries(aliases)) if (!byLoose.has(looseName(alias))) byLoose.set(looseName(alias), name);
  const value: Record<string, unknown> = {};
  const renamed: [string, string][] = [];
  const ignored: string[] = [];
  for (const key of Object.keys(input)) if (known.includes(key)) value[key] = input[key];
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    const name = byLoose.get(looseName(key));
    if (name === undefined || name in value) {
      ignored.push(key);
      continue;
    }
    value[name] = input[key];
    renamed.push([key, name]);
  }
  return { value, renamed, ignored };
}

/** A JSON Schema primitive type a parameter may declare. */
export type SchemaType = 'string' | 'integer' | 'number' | 'boolean';

/**
 * `given` as a value of `type`, or undefined when it cannot be one: `"3"` → 3 (an integer only when
 * whole), `"true"`/`"false"` (any case) and 1/0 → booleans, numbers and booleans → strings for a
 * string. A value already of the type is returned as is.
 */
export function coerceToType(type: SchemaType, given: unknown): string | number | boolean | undefined {
  switch (type) {
    case 'string':
      if (typeof given === 'string') return given;
      return typeof given === 'number' || typeof given === 'boolean' ? String(given) : undefined;
    case 'integer':
    case 'number': {
      let n: number | undefined;
      if (typeof given === 'number') n = given;
      else if (typeof given === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(given)) n = Number(given);
      if (n === undefined || !Number.isFinite(n)) return undefined;
      return type === 'integer' && !Number.isSafeInteger(n) ? undefined : n;
    }
    case 'boolean':
      if (typeof given === 'boolean') return given;
      if (typeof given === 'string') {
        const word = given.trim().toLowerCase();
        if (word === 'true') return true;
        if (word === 'false') return false;
      }
      return given === 1 || given === 0 ? given === 1 : undefined;
  }
}
