/**
 * The tool a model meant when the name it sent is not one offered: chat-template text that leaked
 * into the name taken off, then a case-, camel-, kebab- and snake-insensitive match, then an MCP
 * tool's name without its server prefix (`execute_javascript` for `QuickJS__execute_javascript`,
 * `Web Search` for `search__Web_Search`: the tool's own name, spelled as offered names are),
 * each taken only when exactly one offered name fits. MCP tool names get no loose match (a near
 * name there may be another server's tool). Pure.
 *
 * Real names seen: `create_event<|channel|>analysis` from gpt-oss on Ollama (ollama/ollama#12132);
 * the Harmony header `commentary to=functions.get_weather <|constrain|>json` (kekzl/imp#1716;
 * the format: openai/harmony, mlc-ai/xgrammar#607); `functions.<name>` from models trained on
 * Codex sessions (tontinton/maki#518); `readFile` and `Read-File` spellings of `read_file`.
 */
import { looseName } from './argument-names.js';

/**
 * `name` without what chat templates leak into it: the part after the last `to=`, the text from
 * the first `<|…|>` token on (leading tokens are dropped first), surrounding whitespace, and
 * `functions.` / `tools.` prefixes.
 */
export function stripTemplateLeaks(name: string): string {
  let s = name;
  const to = s.lastIndexOf('to=');
  if (to !== -1) s = s.slice(to + 3);
  s = s.replace(/^\s*(?:<\|[^|]*\|>\s*)+/, '');
  const token = s.indexOf('<|');
  if (token !== -1) s = s.slice(0, token);
  s = s.trim();
  while (/^(?:functions|tools)\./.test(s)) s = s.slice(s.indexOf('.') + 1);
  return s;
}

/** How a name was resolved: as sent, with template leaks taken off, loosely (case, camel, kebab), or without a server prefix. */
export type ResolvedName = { name: string; how: 'exact' | 'leak' | 'loose' | 'unprefixed' };

/** Between an MCP server's name and its tool's in the names the model is offered (`mcp/mcp-names.ts`). */
const SERVER_SEPARATOR = '__';

/**
 * The offered tool `sent` stands for, or undefined when none does (then the "unknown tool" answer
 * lists the offered ones).
 * @param offered - every tool name offered in this request, MCP ones included.
 * @param strictNames - the names that get no loose match (the MCP tools'); default none.
 */
export function resolveToolName(sent: string, offered: readonly string[], strictNames: ReadonlySet<string> = new Set()): ResolvedName | undefined {
  if (offered.includes(sent)) return { name: sent, how: 'exact' };
  const stripped = stripTemplateLeaks(sent);
  if (stripped !== '' && offered.includes(stripped)) return { name: stripped, how: 'leak' };
  const key = looseName(stripped);
  if (key === '') return undefined;
  const fits = offered.filter((name) => !strictNames.has(name) && looseName(name) === key);
  if (fits.length === 1) return { name: fits[0]!, how: 'loose' };
  if (fits.length > 1) return undefined;
  // The server's own spelling of the tool (`Web Search`) stands for its offered name (`wc__Web_Search`).
  const tool = sanitizeNamePart(stripped);
  const unprefixed = offered.filter((name) => name.endsWith(`${SERVER_SEPARATOR}${tool}`));
  return unprefixed.length === 1 ? { name: unprefixed[0]!, how: 'unprefixed' } : undefined;
}

/**
 * Every character (code point) outside `[a-zA-Z0-9_-]` becomes `_`: how a server's or a tool's
 * own name is spelled in the names offered (`mcp/mcp-names.ts`); a sent name is spelled the same way here.
 */
export function sanitizeNamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/gu, '_');
}
