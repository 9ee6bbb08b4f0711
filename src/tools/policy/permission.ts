/**
 * The permission policy, pure and in one place: what a call needs permission for (its tool's
 * permission class, the key a remembered choice is stored under), given the session's mode (its row
 * of `mode-table.ts`) and the
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
import { MODE_TABLE, type SessionMode } from './mode-table.js';

/** What to do with a call before running it. */
export type PermissionDecision = 'allow' | 'ask' | 'reject';

/** Said to the model when the user declines a call. */
export const DECLINED =
  'The user declined this tool call, so it was not run. Do not try it again unless the user asks; continue without it, or ask the user how to proceed.';

/** What the model is told when {@link decidePermission} rejects a call in `mode`: the mode's reason, else {@link DECLINED}. */
export function refusal(mode: SessionMode): string {
  return MODE_TABLE[mode].refusal ?? DECLINED;
}

/**
 * The decision for one call, by the mode's row of {@link MODE_TABLE}.
 * - `reads` never ask.
 * - `fetches` run where the row says `allowed` (`full-access`, `accept-edits`); elsewhere a
 *   remembered choice for the host decides, else they ask.
 * - `changes: refused` (`read-only`, `plan`): `edits` and `runs` are refused (every mode offers the
 *   same tools), but for MCP tools marked read-only: those ask, as in `ask`.
 * - `changes: allowed` (`full-access`): nothing asks.
 * - A remembered choice for the call's key wins next (`allow` or `reject`).
 * - `changes: edits-inside-cwd` (`accept-edits`): edits inside the cwd and MCP tools marked read-only run; the rest asks.
 * - `changes: asked` (`ask`): `edits` and `runs` ask.
 */
export function decidePermission(mode: SessionMode, remembered: Readonly<Record<string, 'allow' | 'reject'>>, subject: PermissionSubject): PermissionDecision {
  if (subject.permission === 'reads') return 'allow';
  const row = MODE_TABLE[mode];
  // Own entries only: a key such as `toString` must not find Object.prototype's function.
  const choice = Object.hasOwn(remembered, subject.key) ? remembered[subject.key] : undefined;
  if (subject.permission === 'fetches') return row.fetches === 'allowed' ? 'allow' : (choice ?? 'ask');
  if (row.changes === 'refused' && subject.readOnlyHint !== true) return 'reject';
  if (row.changes === 'allowed') return 'allow';
  if (choice === 'allow' || choice === 'reject') return choice;
  if (row.changes === 'edits-inside-cwd' && ((subject.permission === 'edits' && subject.insideCwd === true) || subject.readOnlyHint === true)) return 'allow';
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

/** What the user chose: run or not, and what to remember for the key. */
export interface PermissionChoice {
  allowed: boolean;
  remember?: 'allow' | 'reject';
}

/**
 * Reads the client's response. `selected` with one of our option ids (or a client's own id whose
 * kind we cannot know: treated by its name, `allow…`/`approve…` allowing once) is that choice;
 * `cancelled` refuses.
 */
export function readPermissionOutcome(outcome: RequestPermissionOutcome | undefined): PermissionChoice {
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
