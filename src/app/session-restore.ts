/**
 * A session held again from the store (`session/load`, `session/resume`): its lease taken for
 * this process first, then its saved copy read, its saved `cwd` checked against the server's
 * root, and the session held in memory with the model lists of now.
 */
import type { Session } from '../sessions/session.js';
import type { StoredSession } from '../sessions/session-store.js';
import type { AgentState } from './agent-state.js';
import { storeRefusal } from './session-upkeep.js';
import { sessionNotFound } from './live-session.js';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { confine } from '../tools/index.js';

/**
 * Holds a stored session again, with the model lists of now; a copy a running turn of this
 * process adds to is kept rather than read again.
 */
export async function restoreSession(state: AgentState, stored: StoredSession): Promise<Session> {
  await state.endpointsKnown();
  // A turn of this session is running here (or prompts wait for one): keep that copy, which they add to.
  const running = state.sessions.live(stored.sessionId)?.line.isRunning ? state.sessions.get(stored.sessionId) : undefined;
  if (running) {
    state.picker.attach(running, await state.registry.models());
    return running;
  }
  const session = state.sessions.restore({
    id: stored.sessionId,
    cwd: stored.cwd,
    createdAt: stored.createdAt,
    records: stored.records,
    model: stored.model ?? (await state.defaultModel()),
    options: { ...stored.options },
    title: stored.title,
  });
  state.picker.attach(session, await state.registry.models());
  return session;
}

/**
 * The stored session `sessionId`.
 * @throws {RequestError} -32002 when the store does not have it.
 */
export async function loadStored(state: AgentState, sessionId: string): Promise<StoredSession> {
  const stored = await (await state.store).load(sessionId);
  if (!stored) throw sessionNotFound(sessionId);
  return stored;
}

/**
 * The stored session `sessionId`, its lease taken for this process first (so it is read after the last
 * write of the process that had it before), whose saved `cwd` (where its tools work) must be
 * inside the server's root, whatever `cwd` the client sent. Refused, it is let go again.
 * @throws {RequestError} -32002 when the store does not have it; -32602 when it is outside the
 *   root; -32603 naming the other process when another process has its lease.
 */
export async function loadStoredInRoot(state: AgentState, sessionId: string): Promise<StoredSession> {
  const store = await state.store;
  const heldHere = state.sessions.get(sessionId) !== undefined;
  await store.lease(sessionId).catch((error: unknown) => {
    throw storeRefusal(error, sessionId);
  });
  try {
    // A turn cancelled here (its client went away) is read once it is saved.
    await state.sessions.live(sessionId)?.line.cancelledSettled();
    const stored = await loadStored(state, sessionId);
    await checkInsideRoot(stored.cwd, state.root, 'cwd of the saved session');
    return stored;
  } catch (error) {
    if (!heldHere) await store.release(sessionId);
    throw error;
  }
}

/**
 * Refuses a session directory outside the server's workspace root (`openai-acp serve --root`):
 * `dir` must be `root` or below it, also after following symlinks, so no tool of a remote client
 * ever works outside the root. Nothing is checked without a root.
 *
 * @param field - the parameter named in the refusal, e.g. `cwd` or `additionalDirectories[0]`.
 * @throws RequestError `-32602` with data `{ [field], root }`
 */
export async function checkInsideRoot(dir: string, root: string | undefined, field = 'cwd'): Promise<void> {
  if (root === undefined) return;
  try {
    await confine(dir, { cwd: root, extra: [] });
  } catch {
    throw RequestError.invalidParams(
      { [field]: dir.slice(0, 200), root },
      `Invalid params: "${field}" ${JSON.stringify(dir.slice(0, 200))} is outside this server's workspace root ${root}; sessions here work inside it (openai-acp serve --root)`,
    );
  }
}
