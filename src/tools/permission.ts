/**
 * The permission policy, pure: given the session's mode, the choices the user asked to remember
 * and one tool call, decide whether it runs, is refused, or needs `session/request_permission`;
 * and the four options offered when asking.
 *
 * Sources: ACP permission requests https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission
 * (`PermissionOptionKind`: allow_once, allow_always, reject_once, reject_always); Open Design
 * picks an allow option automatically and kills an agent that offers none (`../shared/ACP-NOTES.md`).
 */
import type { PermissionOption, RequestPermissionOutcome } from '@agentclientprotocol/sdk/unstable';

/** The session modes, in the order they are offered. `ask` is the default. */
export const SESSION_MODES = ['ask', 'accept-edits', 'read-only', 'full-access'] as const;
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
  /** `edit` (writes files), `execute` (runs commands or MCP tools), or `false` (reads only). */
  mutates: 'edit' | 'execute' | false;
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
 * `run_command`, `run_command:<command name>` (the first word of the line, path stripped); for an
 * MCP tool, `mcp:<server>/<tool>`.
 */
export function permissionKey(tool: string, args: Record<string, unknown>, mcp?: { server: string; tool: string }): string {
  if (mcp) return `mcp:${mcp.server}/${mcp.tool}`;
  if (tool === 'run_command') return `run_command:${commandName(typeof args['command'] === 'string' ? args['command'] : '')}`;
  return tool;
}

/**
 * The command name of a shell line: its first word after leading `VAR=value` assignments, with
 * any directory stripped (`/usr/bin/git status` → `git`); '' for an empty line.
 */
export function commandName(line: string): string {
  const words = line.trim().split(/\s+/).filter(Boolean);
  const first = words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) ?? '';
  return first.slice(first.lastIndexOf('/') + 1);
}

/**
 * The decision for one call.
 * - Reads never ask.
 * - `read-only`: anything that mutates is refused (such tools are not even offered), except MCP
 *   tools marked read-only, which go on as in `ask`.
 * - `full-access`: nothing asks.
 * - A remembered choice for the call's key wins next (`allow` or `reject`).
 * - `accept-edits`: edits inside the cwd and MCP tools marked read-only run; the rest asks.
 * - `ask`: everything that mutates asks.
 */
export function decidePermission(mode: SessionMode, remembered: Readonly<Record<string, 'allow' | 'reject'>>, subject: PermissionSubject): PermissionDecision {
  if (subject.mutates === false) return 'allow';
  // MCP tools marked read-only are offered in read-only mode: they ask as in `ask` (a hint from the
  // server is not a promise), instead of being offered and then always refused.
  if (mode === 'read-only' && subject.readOnlyHint !== true) return 'reject';
  if (mode === 'full-access') return 'allow';
  const choice = remembered[subject.key];
  if (choice) return choice;
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
  if (key.startsWith('mcp:')) return `the MCP tool ${key.slice(4)}`;
  if (key === 'write_file' || key === 'edit_file') return `${key === 'write_file' ? 'file writes' : 'file edits'}`;
  return key;
}
