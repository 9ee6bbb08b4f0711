/**
 * The permission policy, pure: given the session's mode, the choices the user asked to remember
 * and one tool call, decide whether it runs, is refused, or needs `session/request_permission`;
 * and the four options offered when asking.
 *
 * Sources: ACP permission requests https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission
 * (`PermissionOptionKind`: allow_once, allow_always, reject_once, reject_always); Open Design
 * picks an allow option automatically and kills an agent that offers none (Open Design's
 * `apps/daemon/src/acp.ts`).
 */
import type { PermissionOption, RequestPermissionOutcome } from '@agentclientprotocol/sdk/unstable';

/** The session modes, in the order they are offered. `ask` is the default. */
export const SESSION_MODES = ['ask', 'accept-edits', 'plan', 'read-only', 'full-access'] as const;
/** One session mode. */
export type SessionMode = (typeof SESSION_MODES)[number];
/** The mode of a session that never chose one. */
export const DEFAULT_MODE: SessionMode = 'ask';

/** Whether `value` names a session mode. */
export function isSessionMode(value: unknown): value is SessionMode {
  return typeof value === 'string' && (SESSION_MODES as readonly string[]).includes(value);
}

/** What a call needs permission for. */
export interface PermissionSubject {
  /** `edit` (writes files), `execute` (runs commands or MCP tools), `fetch` (`fetch_url`), or `false` (reads only). */
  mutates: 'edit' | 'execute' | 'fetch' | false;
  /** The key remembered choices are stored under (see {@link permissionKey}). */
  key: string;
  /** True when every path the call writes is inside the session's cwd (edits only). */
  insideCwd?: boolean;
  /** True for MCP tools annotated `readOnlyHint: true`: they do not ask in `accept-edits`. */
  readOnlyHint?: boolean;
}

/** What to do with a call before running it. */
export type PermissionDecision = 'allow' | 'ask' | 'reject';

/**
 * The key a remembered `allow_always` / `reject_always` is stored under: the tool name; for
 * `run_command`, `run_command:<command>` (the first word of the line, as written: path kept), or
 * `run_line:<the whole line>` for a compound line (see {@link isCompoundCommand}); for an MCP
 * tool, `mcp:<server>/<tool>`; for `fetch_url`, `fetch:<host>` (host and port of the URL, lower case).
 */
export function permissionKey(tool: string, args: Record<string, unknown>, mcp?: { server: string; tool: string }): string {
  if (mcp) return `mcp:${mcp.server}/${mcp.tool}`;
  if (tool === 'fetch_url') return `fetch:${urlHost(args['url'])}`;
  if (tool === 'run_command') {
    const line = typeof args['command'] === 'string' ? args['command'] : '';
    // "Always allow git" must not cover `git status && curl … | sh`: a line that chains, pipes,
    // substitutes or redirects is remembered as that exact line only.
    return isCompoundCommand(line) ? `run_line:${line.trim()}` : `run_command:${commandName(line)}`;
  }
  return tool;
}

/** The `host[:port]` of a URL argument, lower case; '' when it is not a URL. */
function urlHost(url: unknown): string {
  try {
    return typeof url === 'string' ? new URL(url.trim()).host.toLowerCase() : '';
  } catch {
    return '';
  }
}

/**
 * Whether a shell line does more than run one command: `;`, `&`, `|`, newlines, redirections,
 * backquotes or `$(…)` anywhere (quoted or not: being cautious costs one more question).
 */
export function isCompoundCommand(line: string): boolean {
  return /[;&|`<>\n\r]|\$\(/.test(line);
}

/**
 * The command of a shell line: its first word after leading `VAR=value` assignments, as written,
 * path included (`/usr/bin/git status` → `/usr/bin/git`: "always allow git" must not cover
 * `./git`, a program the model may have written); '' for an empty line.
 */
export function commandName(line: string): string {
  const words = line.trim().split(/\s+/).filter(Boolean);
  return words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) ?? '';
}

/**
 * The decision for one call.
 * - Reads never ask.
 * - Fetches (`fetch_url`) run in `full-access` and `accept-edits`; elsewhere (`ask`, `read-only`,
 *   `plan`) a remembered choice for the host decides, else they ask.
 * - `read-only` and `plan`: anything that mutates is refused (such tools are not even offered),
 *   but for MCP tools marked read-only (they are offered): those ask, as in `ask`.
 * - `full-access`: nothing asks.
 * - A remembered choice for the call's key wins next (`allow` or `reject`).
 * - `accept-edits`: edits inside the cwd and MCP tools marked read-only run; the rest asks.
 * - `ask`: everything that mutates asks.
 */
export function decidePermission(mode: SessionMode, remembered: Readonly<Record<string, 'allow' | 'reject'>>, subject: PermissionSubject): PermissionDecision {
  if (subject.mutates === false) return 'allow';
  // Own entries only: a key such as `toString` must not find Object.prototype's function.
  const choice = Object.hasOwn(remembered, subject.key) ? remembered[subject.key] : undefined;
  if (subject.mutates === 'fetch') return mode === 'full-access' || mode === 'accept-edits' ? 'allow' : (choice ?? 'ask');
  if ((mode === 'read-only' || mode === 'plan') && subject.readOnlyHint !== true) return 'reject';
  if (mode === 'full-access') return 'allow';
  if (choice === 'allow' || choice === 'reject') return choice;
  if (mode === 'accept-edits' && ((subject.mutates === 'edit' && subject.insideCwd === true) || subject.readOnlyHint === true)) return 'allow';
  return 'ask';
}

/** The option ids offered, one per spec kind. */
export const PERMISSION_OPTION_IDS = { allowOnce: 'allow_once', allowAlways: 'allow_always', rejectOnce: 'reject_once', rejectAlways: 'reject_always' } as const;

/**
 * The four options of a permission request, allow first. `always` names what "always" covers
 * (e.g. `run "git" commands`, `edits`), shown in the option names.
 */
export function permissionOptions(always: string): PermissionOption[] {
  return [
    { optionId: PERMISSION_OPTION_IDS.allowOnce, name: 'Allow', kind: 'allow_once' },
    { optionId: PERMISSION_OPTION_IDS.allowAlways, name: `Always allow ${always} in this session`, kind: 'allow_always' },
    { optionId: PERMISSION_OPTION_IDS.rejectOnce, name: 'Reject', kind: 'reject_once' },
    { optionId: PERMISSION_OPTION_IDS.rejectAlways, name: `Always reject ${always} in this session`, kind: 'reject_always' },
  ];
}

/** What the user's answer means: run or not, and what to remember for the key. */
export interface PermissionAnswer {
  allowed: boolean;
  remember?: 'allow' | 'reject';
}

/**
 * Reads the client's answer. `selected` with one of our option ids (or a client's own id whose
 * kind we cannot know: treated by its name, `allow…`/`approve…` allowing once) is that choice;
 * `cancelled` refuses.
 */
export function readPermissionOutcome(outcome: RequestPermissionOutcome | undefined): PermissionAnswer {
  if (!outcome || outcome.outcome !== 'selected') return { allowed: false };
  switch (outcome.optionId) {
    case PERMISSION_OPTION_IDS.allowOnce:
      return { allowed: true };
    case PERMISSION_OPTION_IDS.allowAlways:
      return { allowed: true, remember: 'allow' };
    case PERMISSION_OPTION_IDS.rejectAlways:
      return { allowed: false, remember: 'reject' };
    case PERMISSION_OPTION_IDS.rejectOnce:
      return { allowed: false };
    default:
      // Open Design answers `approve_for_session` whatever was offered.
      return /^(allow|approve)/i.test(outcome.optionId) ? { allowed: true } : { allowed: false };
  }
}

/** What "always" covers for a key, in words for the option names. */
export function alwaysScope(key: string): string {
  if (key.startsWith('run_command:')) {
    const name = key.slice('run_command:'.length);
    return name ? `"${name}" commands` : 'commands';
  }
  if (key.startsWith('run_line:')) return 'this exact command line';
  if (key.startsWith('mcp:')) return `the MCP tool ${key.slice(4)}`;
  if (key.startsWith('fetch:')) return `fetches from ${key.slice('fetch:'.length) || 'this host'}`;
  if (key === 'write_file' || key === 'edit_file') return `${key === 'write_file' ? 'file writes' : 'file edits'}`;
  return key;
}
