/**
 * `/undo`, handled by the agent (nothing is sent to the model): the latest turn still in the
 * conversation is taken back. Every file it changed gets its earlier text again (through the same
 * backend as the turn's writes: the client's `fs/write_text_file` when advertised, so the editor
 * shows it), files it created are removed, and the turn leaves the conversation. A file changed
 * by someone else since that turn is not overwritten: nothing is restored and `/undo` says which.
 * Commands the turn ran cannot be undone; the answer says so.
 */
import type { PlanEntry, PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { agentText } from '../loop/to-acp.js';
import type { CheckpointFile } from '../sessions/checkpoints.js';
import { hashText } from '../sessions/checkpoints.js';
import type { Session } from '../sessions/session.js';
import { currentPlanOf, removeTurn, undoableTurn } from '../sessions/live-records.js';
import type { TurnRecord } from '../sessions/session-records.js';
import {
  confine,
  createClientBackend,
  createLocalBackend,
  readBefore,
  relativeForTitle,
  type ToolBackend,
  ToolError,
  type WorkspaceRoots,
} from '../tools/index.js';
import type { PromptTurn } from '../loop/prompt-turn.js';

/**
 * The answer when there is no turn to undo.
 * @internal the tests look for these exact words in what is sent.
 */
export const NOTHING_TO_UNDO = 'Nothing to undo: this conversation has no turn left to take back.';
/**
 * The answer when the conversation was cleared or compacted after its last turn.
 * @internal the tests look for these exact words in what is sent.
 */
export const BEHIND_A_RESET =
  'Nothing to undo: /undo goes back only to the last /clear or /compact, and the turns before it are cleared or ' +
  'summarised. Change the files by hand if you need to.';

/**
 * The `plan` entries to send after an /undo, or `undefined` when the plan in force did not change
 * (none before and none after included: an empty `plan` update would show as an empty plan block).
 * A plan that the undone turn made and that is gone now is sent as `[]`, which clears it: each
 * `plan` update carries the whole plan (ACP "Agent Plan", https://agentclientprotocol.com/protocol/agent-plan).
 * @internal checked by the tests on its own, without a session or a client.
 */
export function planAfterUndo(before: readonly PlanEntry[], now: PlanEntry[]): PlanEntry[] | undefined {
  return JSON.stringify(before) === JSON.stringify(now) ? undefined : now;
}

/**
 * `/undo` as a prompt turn: the latest turn taken back through the backend its writes went
 * through (the client's `fs/*` when the turn's connection advertised it, else local inside `roots`), the answer
 * and the plan now in force sent, `end_turn` answered; `cancelled` when `signal` aborted while
 * restoring (the files restored so far stay so, the turn stays in the conversation). Nothing goes
 * to the model.
 * @throws a bug's error (see {@link undoLastTurn}).
 */
export async function undoPrompt(turn: PromptTurn, input: Pick<UndoInput, 'roots' | 'saveUndo'>): Promise<PromptResponse> {
  const { session, signal, send, client, capabilities } = turn;
  const { roots } = input;
  const backend = createClientBackend({ client, sessionId: session.id, capabilities, local: createLocalBackend(roots) });
  const planBefore = currentPlanOf(session);
  let text: string;
  try {
    text = await undoLastTurn({ session, backend, roots, signal, saveUndo: input.saveUndo });
  } catch (error) {
    // Cancelled while restoring: the files restored so far stay so, the turn stays in the conversation.
    if (signal.aborted) return { stopReason: 'cancelled' };
    throw error;
  }
  const plan = planAfterUndo(planBefore, currentPlanOf(session));
  await send(plan === undefined ? [agentText(text)] : [agentText(text), { sessionUpdate: 'plan', entries: plan }]);
  return { stopReason: 'end_turn' };
}

/** What `/undo` needs. */
export interface UndoInput {
  session: Session;
  /** Where the turn's writes went (client or local), for reading and restoring. */
  backend: ToolBackend;
  roots: WorkspaceRoots;
  signal: AbortSignal;
  /** Saves the `undo` record (after the files were restored). */
  saveUndo: () => Promise<void>;
}

/**
 * Undoes the latest turn of `session` and returns the answer for the user. Removes the turn
 * from `session.records` once its files are restored.
 * @throws the signal's reason when aborted; a bug's error (not a {@link ToolError}).
 * @internal the tests run it over a memory backend, without a client (prompts go through {@link undoPrompt}).
 */
export async function undoLastTurn(input: UndoInput): Promise<string> {
  const { session, backend, roots, signal } = input;
  const index = undoableTurn(session);
  if (index === 'none') return NOTHING_TO_UNDO;
  // A summary written after the turn would still tell the model about it; a /clear meant to start afresh.
  if (index === 'behind-reset') return BEHIND_A_RESET;
  const turn = session.records[index] as TurnRecord;
  const files = turn.checkpoint?.files ?? [];
  const name = (path: string) => relativeForTitle(path, roots.cwd);

  // First check every file, then change any: a refused /undo leaves everything as it was.
  const changed: string[] = [];
  const outside: string[] = [];
  for (const file of files) {
    if (file.before === undefined) continue;
    const now = await currentText(backend, file.path, roots, signal);
    if (now === OUTSIDE) outside.push(name(file.path));
    // Already as it was before the turn (an /undo cancelled part way restored it): restoring again changes nothing.
    else if (now === file.before) continue;
    else if (now === undefined || now === null || hashText(now) !== file.after) changed.push(name(file.path));
  }
  if (changed.length > 0 || outside.length > 0) {
    const why = [
      changed.length > 0 ? `${changed.join(', ')} ${changed.length === 1 ? 'was' : 'were'} changed since that turn` : '',
      outside.length > 0 ? `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside this session's workspace` : '',
    ].filter(Boolean);
    return `/undo stopped: ${why.join('; ')}. Nothing was restored and the turn stays; undo those changes first, or fix the files by hand.`;
  }

  const restored: string[] = [];
  const removed: string[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      const outcome = await restore(file, backend, roots, signal);
      if (outcome === 'removed') removed.push(name(file.path));
      else if (outcome === 'restored') restored.push(name(file.path));
      else failed.push(`${name(file.path)} (${outcome.notKept})`);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!(error instanceof ToolError)) throw error;
      failed.push(`${name(file.path)} (${error.message})`);
    }
  }
  removeTurn(session, index);
  await input.saveUndo();

  const lines = [`Undid the last turn${describePrompt(turn)}: it is no longer part of the conversation.`];
  if (restored.length > 0) lines.push(`Restored: ${restored.join(', ')}.`);
  if (removed.length > 0) lines.push(`Removed (created by that turn): ${removed.join(', ')}.`);
  if (files.length === 0) lines.push('It changed no files.');
  if (failed.length > 0) lines.push(`Not restored: ${failed.join('; ')}.`);
  const commands = turn.checkpoint?.commands ?? [];
  if (commands.length > 0) {
    lines.push(
      `It also ran ${commands.length === 1 ? 'a command' : `${commands.length} commands`} ` +
        `(${commands.map((c) => `\`${c.length > 60 ? `${c.slice(0, 57)}…` : c}\``).join(', ')}); what ` +
        `${commands.length === 1 ? 'it' : 'they'} changed cannot be undone.`,
    );
  }
  return lines.join('\n');
}

/** {@link currentText} of a file outside the session's workspace (a fork in another cwd). */
const OUTSIDE = Symbol('outside');

/** The file's text now: `null` when it does not exist, `undefined` when it cannot be read as text, {@link OUTSIDE}. */
async function currentText(
  backend: ToolBackend,
  path: string,
  roots: WorkspaceRoots,
  signal: AbortSignal,
): Promise<string | null | undefined | typeof OUTSIDE> {
  let confined: string;
  try {
    confined = await confine(path, roots);
  } catch (error) {
    if (error instanceof ToolError) return OUTSIDE;
    throw error;
  }
  const before = await readBefore(backend, confined, signal);
  return typeof before === 'object' && before !== null ? undefined : before;
}

async function restore(
  file: CheckpointFile,
  backend: ToolBackend,
  roots: WorkspaceRoots,
  signal: AbortSignal,
): Promise<'restored' | 'removed' | { notKept: string }> {
  if (file.before === undefined) return { notKept: file.notKept ?? 'its earlier text was not kept' };
  const path = await confine(file.path, roots);
  if (file.before === null) {
    if (!backend.deleteFile) return { notKept: 'files cannot be removed here' };
    await backend.deleteFile(path, signal);
    return 'removed';
  }
  await backend.writeTextFile(path, file.before, signal);
  return 'restored';
}

/** ` ("first words of the prompt")`, or '' when the prompt has no text. */
function describePrompt(turn: TurnRecord): string {
  const text = (turn.typed ?? turn.prompt)
    .find((block) => block.type === 'text')
    ?.text?.replace(/\s+/g, ' ')
    .trim();
  if (!text) return '';
  return ` ("${text.length > 50 ? `${text.slice(0, 49)}…` : text}")`;
}
