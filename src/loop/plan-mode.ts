/**
 * The plan tool's call and the `plan` mode's hand-over: each plan the model writes is sent as a
 * `plan` update (the whole list) and kept for the turn record; in `plan` mode the user is then
 * asked, with `session/request_permission`, whether to start (switching to `accept-edits` or
 * `ask`) or keep planning. A switch is announced like every mode change the agent makes itself:
 * `current_mode_update` and `config_option_update`.
 *
 * Sources: ACP agent plan https://agentclientprotocol.com/protocol/v1/agent-plan, session modes
 * https://agentclientprotocol.com/protocol/v1/session-modes (`current_mode_update` when the agent
 * changes the mode), config options (`config_option_update` with the full list).
 */
import type {
  PermissionOption,
  PlanEntry,
  RequestPermissionOutcome,
  SessionConfigOption,
  SessionUpdate,
  ToolCallContent,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk/unstable';
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import { planText, raceAbort, type SessionMode, type ToolOutcome } from '../tools/index.js';
import type { UpdateSink } from '../tools/index.js';

/** What a plan call needs from the turn. */
export interface PlanHooks {
  /** Keeps the turn's latest plan (saved with the turn, replayed on `session/load`). */
  keep(entries: PlanEntry[]): void;
  /** Switches the session's mode: saved with the session and announced ({@link modeAnnouncement}). */
  switchMode(mode: SessionMode): Promise<void>;
}

/** What a plan call needs of the session and the call. */
export interface PlanCallDeps {
  sessionId: string;
  client: AgentContext;
  send: UpdateSink;
  /** The session's mode when the call runs. */
  mode: SessionMode;
  plan: PlanHooks;
  logger: Logger;
  signal: AbortSignal;
}

/** The option ids of the "start on the plan?" question. */
const PLAN_START_OPTION_IDS = { acceptEdits: 'plan_start_accept_edits', ask: 'plan_start_ask', stay: 'plan_keep_planning' } as const;

/**
 * The options of the question: start accepting edits, start asking before each edit, or keep planning.
 * @internal the tests check the options the question offers, without a client.
 */
export const PLAN_START_OPTIONS: readonly PermissionOption[] = [
  { optionId: PLAN_START_OPTION_IDS.acceptEdits, name: 'Start: switch to Accept edits', kind: 'allow_always' },
  { optionId: PLAN_START_OPTION_IDS.ask, name: 'Start: switch to Ask (approve each edit)', kind: 'allow_once' },
  { optionId: PLAN_START_OPTION_IDS.stay, name: 'Keep planning', kind: 'reject_once' },
];

/**
 * The mode an answer to the question starts in, or `undefined` to keep planning (also for a
 * cancelled question). A client's own option id that reads as an approval (`allow…`,
 * `approve…`) starts in `ask`, the mode that still asks before each edit.
 * @internal a pure reading of a permission answer, checked without a client.
 */
export function readPlanStart(outcome: RequestPermissionOutcome | undefined): 'accept-edits' | 'ask' | undefined {
  if (outcome?.outcome !== 'selected') return undefined;
  if (outcome.optionId === PLAN_START_OPTION_IDS.acceptEdits) return 'accept-edits';
  if (outcome.optionId === PLAN_START_OPTION_IDS.ask) return 'ask';
  if (outcome.optionId === PLAN_START_OPTION_IDS.stay) return undefined;
  return /^(allow|approve)/i.test(outcome.optionId) ? 'ask' : undefined;
}

/** The updates that announce a mode the agent set itself: `current_mode_update`, then `config_option_update` with every option. */
export function modeAnnouncement(mode: SessionMode, configOptions: SessionConfigOption[]): SessionUpdate[] {
  return [
    { sessionUpdate: 'current_mode_update', currentModeId: mode },
    { sessionUpdate: 'config_option_update', configOptions },
  ];
}

/**
 * Thrown by a permission question the client answers `{outcome: "cancelled"}`: the prompt turn
 * was cancelled (ACP: a client that cancels a turn answers its pending permission requests so,
 * https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation), whether or not its
 * `session/cancel` has arrived yet. The tool call runner ends the turn on it.
 */
export const PERMISSION_CANCELLED = new Error('the client cancelled the turn while asking for permission');

/** Said to the model after a plan in a mode other than `plan`. */
const PLAN_KEPT = 'Plan updated.';
/** Said to the model when the user wants to keep planning. */
const PLAN_NOT_STARTED = 'Plan saved. The user wants to keep planning (still plan mode: no edits or commands): refine the plan or answer their questions.';

/**
 * Runs one (already checked) plan call: keeps the plan, sends it as a `plan` update, and in
 * `plan` mode asks whether to start. A client that cannot ask counts as "keep planning".
 * @throws the signal's reason when the turn is cancelled while asking; {@link PERMISSION_CANCELLED}
 *   when the client answers the question `cancelled`.
 */
export async function runPlanCall(entries: PlanEntry[], toolCall: ToolCallUpdate, deps: PlanCallDeps): Promise<ToolOutcome> {
  deps.plan.keep(entries);
  await deps.send([{ sessionUpdate: 'plan', entries }]);
  const shown: ToolCallContent[] = [{ type: 'content', content: { type: 'text', text: planText(entries) } }];
  if (deps.mode !== 'plan') return { failed: false, forModel: PLAN_KEPT, content: shown };
  let outcome: RequestPermissionOutcome | undefined;
  try {
    const answer = await raceAbort(
      deps.client.request('session/request_permission', {
        sessionId: deps.sessionId,
        toolCall: { ...toolCall, title: 'Start on this plan?', content: shown },
        options: [...PLAN_START_OPTIONS],
      }),
      deps.signal,
    );
    outcome = answer.outcome;
  } catch (error) {
    if (deps.signal.aborted) throw deps.signal.reason;
    deps.logger.warn('the client could not ask whether to start on the plan; staying in plan mode', { error: (error as Error)?.message ?? String(error) });
  }
  if (outcome?.outcome === 'cancelled') throw PERMISSION_CANCELLED;
  const mode = readPlanStart(outcome);
  if (!mode) return { failed: false, forModel: PLAN_NOT_STARTED, content: shown };
  await deps.plan.switchMode(mode);
  return {
    failed: false,
    forModel: `The user approved the plan and switched the session to ${mode} mode: carry out the plan now, marking each step in_progress and completed with update_plan.`,
    content: shown,
  };
}
