/**
 * Model-facing names of MCP tools: `<server>__<tool>`, made acceptable to every provider.
 *
 * The limits are the strictest seen (OpenAI's and Gemini's function-name rules): OpenAI requires
 * `^[a-zA-Z0-9_-]+$` and at most 64 characters; Gemini allows the same set plus dots, also 64.
 * Codex names MCP tools the same way (`server__tool`, cut to 64 with a hash suffix).
 */
import { sanitizeNamePart } from '../calls/tool-name-resolve.js';

/** One tool of one server, as the server names them. */
export interface McpToolRef {
  /** The server's name from the client's `mcpServers` entry. */
  server: string;
  /** The tool's name from the server's `tools/list`. */
  tool: string;
}

/** Longest name the providers accept. */
const MAX_TOOL_NAME_LENGTH = 64;
/** Between server and tool: two underscores, as codex and goose. */
const SEPARATOR = '__';
/** Hex digits of the hash that marks a cut name: 16.7 M values, ample for one session's tools. */
const HASH_DIGITS = 6;

/**
 * FNV-1a (32 bits) of the UTF-8 bytes of `text`, as 8 hex digits. A tiny pure hash, so the name
 * mapping needs no `node:crypto` (kept out of start-up); it marks names, it does not protect them.
 * @internal a shortened name ends in this hash, and the tests state that rule with it.
 */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The name before de-duplication: `<server>__<tool>` sanitised; over 64 characters it is cut
 * to 57 and `-` plus 6 hex digits of the hash of the original server and tool names is added, so
 * two long names that share their first 57 characters still differ.
 * @internal a pure step checked on long names without a server.
 */
export function baseToolName({ server, tool }: McpToolRef): string {
  const name = `${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = fnv1a32(`${server}\u0000${tool}`).slice(0, HASH_DIGITS);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_DIGITS - 1)}-${hash}`;
}

/** `name` with `suffix` at its end, cutting `name` so the result stays within 64 characters. */
function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * Model-facing names for `entries`, in the same order: each matches `^[a-zA-Z0-9_-]{1,64}$`,
 * all differ from each other and from every `reserved` name (the built-in tools always win).
 * A name already taken (two tools that sanitise alike, or a built-in) gets `_2`, `_3`, … in
 * list order, so the result depends only on the arguments. Pure; never throws.
 */
export function mcpToolNames(entries: readonly McpToolRef[], reserved: ReadonlySet<string>): string[] {
  const taken = new Set(reserved);
  return entries.map((entry) => {
    const base = baseToolName(entry);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = withSuffix(base, `_${n}`);
    taken.add(name);
    return name;
  });
}
