/**
 * The permission policy, pure and in one place: what a call needs permission for (its tool's
 * permission class, the key a remembered choice is stored under), given the session's mode and the
 * choices the user asked to remember whether it runs, is refused (and the words said to the model)
 * or needs `session/request_permission`; the four options offered when asking, and how the
 * answer is read. The tool-call runner only sends the request.
 *
 * Sources: ACP permission requests https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission
 * (`PermissionOptionKind`: allow_once, allow_always, reject_once, reject_always); Open Design
 * picks an allow option automatically and kills an agent that offers none (its daemon's
 * `apps/daemon/src/acp.ts`).
 */
import type { PermissionOption, RequestPermissionOutcome } from '@agentclientprotocol/sdk/unstable';
import type { PermissionSubject } from '../tool.js';
import { PLAN_TOOL_NAME } from './plan-tool.js';

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

/** What to do with a call before running it. */
export type PermissionDecision = 'allow' | 'ask' | 'reject';

/** Said to the model when the user declines a call. */
export const DECLINED =
  'The user declined this tool call, so it was not run. Do not try it again unless the user asks; continue without it, or ask the user how to proceed.';

/** Why a mode refuses edits and commands, said to the model (no permission is asked). */
const MODE_REFUSALS: Partial<Record<SessionMode, string>> = {
  'read-only': 'The session is in read-only mode: edits and commands are not allowed. Tell the user what you would change instead.',
  plan: `The session is in plan mode: edits and commands are not allowed until the user approves a plan. Explore with the read and search tools, then write your plan with ${PLAN_TOOL_NAME}.`,
};

/** What the model is told when {@link decidePermission} rejects a call in `mode`: the mode's reason, else {@link DECLINED}. */
export function refusal(mode: SessionMode): string {
  return MODE_REFUSALS[mode] ?? DECLINED;
}

/**
 * The decision for one call.
 * - `reads` never ask.
 * - `fetches` run in `full-access` and `accept-edits`; elsewhere (`ask`, `read-only`,
 *   `plan`) a remembered choice for the host decides, else they ask.
 * - `read-only` and `plan`: `edits` and `runs` are refused (every mode offers the same tools),
 *   but for MCP tools marked read-only: those ask, as in `ask`.
 * - `full-access`: nothing asks.
 * - A remembered choice for the call's key wins next (`allow` or `reject`).
 * - `accept-edits`: edits inside the cwd and MCP tools marked read-only run; the rest asks.
 * - `ask`: `edits` and `runs` ask.
 */
export function decidePermission(mode: SessionMode, remembered: Readonly<Record<string, 'allow' | 'reject'>>, subject: PermissionSubject): PermissionDecision {
  if (subject.permission === 'reads') return 'allow';
  // Own entries only: a key such as `toString` must not find Object.prototype's function.
  const choice = Object.hasOwn(remembered, subject.key) ? remembered[subject.key] : undefined;
  if (subject.permission === 'fetches') return mode === 'full-access' || mode === 'accept-edits' ? 'allow' : (choice ?? 'ask');
  if ((mode === 'read-only' || mode === 'plan') && subject.readOnlyHint !== true) return 'reject';
  if (mode === 'full-access') return 'allow';
  if (choice === 'allow' || choice === 'reject') return choice;
  if (mode === 'accept-edits' && ((subject.permission === 'edits' && subject.insideCwd === true) || subject.readOnlyHint === true)) return 'allow';
  return 'ask';
}

/**
 * The option ids offered, one per spec kind.
 * @internal the tests answer permission requests with these ids.
 */
export const PERMISSION_OPTION_IDS = {
  allowOnce: 'allow_once',
  allowAlways: 'allow_always',
  rejectOnce: 'reject_once',
  rejectAlways: 'reject_always',
} as const;

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
  if (outcome?.outcome !== 'selected') return { allowed: false };
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
