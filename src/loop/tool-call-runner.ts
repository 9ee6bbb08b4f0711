/**
 * One tool call as the client sees it: announced as `tool_call` (pending, with `rawInput`),
 * permission asked when the mode says so (`session/request_permission`, reusing the call's id),
 * `in_progress` while it runs (a client terminal embedded as soon as it exists), then `completed`
 * or `failed` with its content; a client terminal is released only after that last update.
 *
 * The call's tool comes resolved (`OfferedTools.resolve`, once per call, by the agent loop); this
 * file talks to it through the tool contract alone (`check`, `present`, `permission`, `run`), the
 * same for every kind of tool. The permission is decided by the policy, the updates built by the
 * presentation helpers of `tools/`; this file sends and runs.
 *
 * Sources: ACP tool calls https://agentclientprotocol.com/protocol/v1/tool-calls and terminals
 * https://agentclientprotocol.com/protocol/v1/terminals (release a terminal after the update that
 * embeds it).
 */
import type { RequestPermissionResponse, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk/unstable';
import type { ToolResultRecord } from '../sessions/session-records.js';
import {
  announceUpdate,
  type CallTarget,
  DECLINED,
  decidePermission,
  failedOutcome,
  finalUpdate,
  type PermissionSubject,
  permissionOptions,
  progressUpdate,
  raceAbort,
  readPermissionOutcome,
  refusal,
  runTool,
  type ToolCallAnnouncement,
  type ToolOutcome,
  textContent as text,
} from '../tools/index.js';
import type { AnswerToolCall, ToolCallSession, ToolCallTurn } from './loop-input.js';
import { PERMISSION_CANCELLED } from './plan-mode.js';

/**
 * Said to the model for a call cancelled while it waited for permission or ran.
 * @internal the tests look for these exact words in a cancelled call's record.
 */
export const CANCELLED = 'Cancelled by the user before it finished; anything it did may be partly done.';

let counter = 0;
/** A `toolCallId` unique in this process (and, with the time, across restarts of a session). */
function newToolCallId(): string {
  return `call-${Date.now().toString(36)}-${(++counter).toString(36)}`;
}

/**
 * Runs one call of `turn` end to end (its updates to `turn.send`, `turn.signal` its cancel) and returns its record (what the model is told is `forModel`), with
 * the images a tool returned (not part of the record).
 * Never rejects for a tool's own failure (bad arguments, unknown tool, a refusal, an error of
 * the tool): those are failed results. A call cancelled while asking or running (the signal
 * aborts) is also a failed result, {@link CANCELLED} to the model, shown `failed` to the client
 * (its terminal freed), so the saved step keeps its `toolCallId` for a replay.
 * @param call - `cut`: the answer stopped at its token limit, or its text ended, while writing this
 *   call: it is not run, the model is told to write it shorter.
 * @param target - the call's tool, resolved from its name; `renamed` adds a note naming the tool.
 */
export async function runToolCall(
  turn: ToolCallTurn,
  call: AnswerToolCall,
  { tool, name, renamed }: CallTarget,
  session: ToolCallSession,
): Promise<ToolResultRecord & { images?: ToolOutcome['images']; endsTurn?: true }> {
  const { send: sendUpdates, signal, logger } = turn;
  const toolCallId = newToolCallId();
  const checked = tool.check(call.arguments, call.cut === true);
  const args = checked.ok ? checked.args : {};
  const notes = [...(renamed ? [`the tool is named "${name}"`] : []), ...(checked.ok ? checked.notes : [])];
  const presentation = tool.present(args);
  const rawInput = checked.ok ? args : call.arguments;
  const record = (status: 'completed' | 'failed', outcome: Pick<ToolOutcome, 'content' | 'forModel'>): ToolResultRecord => ({
    id: call.id,
    toolCallId,
    title: presentation.title,
    kind: presentation.kind,
    status,
    rawInput,
    content: outcome.content.map(withoutTerminal(outcome.forModel)),
    ...(presentation.locations ? { locations: presentation.locations } : {}),
    forModel: outcome.forModel,
  });
  // A tool may complete its preview from the workspace (write_file: the text it replaces) before the permission question.
  const shown = checked.ok && tool.presentFromWorkspace ? await tool.presentFromWorkspace(args, presentation, signal) : presentation;
  const announce = announceUpdate(toolCallId, shown, rawInput);
  // The announcement goes out with the call's next update (its `in_progress`, or its failure), in
  // one send: the checks between them are pure, so the client sees the same messages in the same order.
  let unannounced = true;
  const send = (updates: SessionUpdate[]) => {
    if (!unannounced) return sendUpdates(updates);
    unannounced = false;
    return sendUpdates([announce, ...updates]);
  };

  const finish = async (outcome: ToolOutcome) => {
    try {
      await send([finalUpdate(toolCallId, outcome)]);
    } finally {
      await outcome.release?.();
    }
    const status = outcome.failed ? 'failed' : 'completed';
    return outcome.images ? { ...record(status, outcome), images: outcome.images } : record(status, outcome);
  };
  const fail = (message: string) => finish(failedOutcome(message));
  // The connection may already be going away on a cancel: the record is kept even if the update is lost.
  const cancelled = () =>
    finish({ failed: true, forModel: CANCELLED, content: [text('Cancelled.')] }).catch(() =>
      record('failed', { forModel: CANCELLED, content: [text('Cancelled.')] }),
    );

  // Unknown tools and bad arguments go back to the model with the tool's parameters (and, for a
  // call read from text, how to write it).
  if (call.refusal && checked.ok) return fail(withHint(`${name}: this call cannot run as written: ${call.refusal}.`, call.hint));
  if (!checked.ok) return fail(withHint(checked.error, call.hint));

  const decide = (subject: PermissionSubject) => decidePermission(session.mode, session.remembered, subject);
  const subject = tool.permission(args);
  const decision = decide(subject);
  if (decision === 'reject') return fail(refusal(session.mode));
  if (decision === 'ask') {
    await send([]);
    let allowed: boolean;
    try {
      allowed = await askPermission(turn, announce, subject, session);
    } catch (error) {
      if (signal.aborted) return cancelled();
      // The turn is over: the call shown cancelled (not declined), and no further model request.
      if (error === PERMISSION_CANCELLED) return { ...(await cancelled()), endsTurn: true };
      throw error;
    }
    if (!allowed) return fail(DECLINED);
  }

  await send([progressUpdate(toolCallId)]);
  try {
    const { sessionUpdate: _announced, ...toolCall } = announce;
    const outcome = await runTool(tool, args, {
      toolCallId,
      toolCall,
      signal,
      send: sendUpdates,
      onTerminal: (terminalId) => sendUpdates([progressUpdate(toolCallId, terminalId)]),
      runsUnasked: (other) => decide(tool.permission(other)) === 'allow',
    });
    return await finish(withNotes(outcome, notes));
  } catch (error) {
    if (signal.aborted) return cancelled();
    // The plan's "start?" question answered `cancelled`: the turn is over, as for a tool's permission.
    if (error === PERMISSION_CANCELLED) return { ...(await cancelled()), endsTurn: true };
    logger.error('tool call failed with an internal error', { tool: name, error: (error as Error)?.stack ?? String(error) });
    return fail(`The tool failed with an internal error of openai-acp: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** A refusal with the way to write the call after it, when there is one. */
function withHint(error: string, hint: string | undefined): string {
  return hint ? `${error}\n${hint}` : error;
}

/** The outcome with what the argument check changed or ignored told to the model after the result. */
function withNotes<T extends ToolOutcome>(outcome: T, notes: readonly string[]): T {
  return notes.length === 0 ? outcome : { ...outcome, forModel: `${outcome.forModel}\n\n(Note: ${notes.join('; ')}.)` };
}

/**
 * Asks the user about the call `announce` describes, in `turn` (its cancel, its log). A client that answers with an error (or does not implement the method) counts as
 * a refusal, with one log line; a cancelled turn rejects with the signal's reason, and a
 * `cancelled` outcome with {@link PERMISSION_CANCELLED}.
 */
async function askPermission(
  { signal, logger }: ToolCallTurn,
  announce: ToolCallAnnouncement,
  subject: PermissionSubject,
  session: ToolCallSession,
): Promise<boolean> {
  // The call as announced: the same fields the client was just sent.
  const { sessionUpdate: _announced, ...toolCall } = announce;
  let answer: RequestPermissionResponse;
  try {
    answer = await raceAbort(
      session.editor.request('session/request_permission', {
        sessionId: session.sessionId,
        toolCall,
        options: permissionOptions(subject.scope ?? subject.key),
      }),
      signal,
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    logger.warn('the client could not ask for permission; the tool call counts as declined', { error: (error as Error)?.message ?? String(error) });
    return false;
  }
  if (answer.outcome?.outcome === 'cancelled') throw PERMISSION_CANCELLED;
  const read = readPermissionOutcome(answer.outcome);
  if (read.remember) await session.remember(subject.key, read.remember);
  return read.allowed;
}

/** Stored content: a terminal (released, so a replay could not show it) becomes the output text. */
function withoutTerminal(forModel: string) {
  return (content: ToolCallContent): ToolCallContent => (content.type === 'terminal' ? text(forModel) : content);
}
