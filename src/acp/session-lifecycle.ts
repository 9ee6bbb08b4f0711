/**
 * Session lifecycle methods: `session/new`, `session/load` (history replayed), `session/resume`,
 * `session/fork` (a copy of a held session, `session-fork.ts`), `session/list`, `session/close`
 * and `session/delete`. A session held again from the store (load, resume) goes through
 * `session-restore.ts`, with the model lists of now.
 *
 * Source: ACP session setup https://agentclientprotocol.com/protocol/session-setup and the
 * session list, resume, close and delete RFDs (https://agentclientprotocol.com/rfds/).
 */
import { RequestError, type AgentContext, type McpServer } from '@agentclientprotocol/sdk/unstable';
import { InvalidCursorError, paginateSessions } from '../sessions/session-list.js';
import type { Session } from '../sessions/session.js';
import type { SavedMcpTool } from '../sessions/session-records.js';
import type { AgentState } from '../app/agent-state.js';
import { storeRefusal } from '../app/session-upkeep.js';
import { checkInsideRoot, loadStored, loadStoredInRoot, restoreSession } from '../app/session-restore.js';
import { updateSender, type ClientPeer } from '../app/client-peer.js';
import type { LiveSession } from '../app/live-session.js';
import { replayUpdates } from './replay.js';
import { INSTRUCTIONS_OPTION, sessionResponse } from '../app/session-config.js';
import { SLASH_COMMANDS } from '../app/slash-commands.js';
import { checkCwd, checkMcpServers } from './validate-params.js';
import { copySession } from '../app/session-fork.js';
import { AGENT_NAME } from '../shared/version.js';
import { isWithin } from '../shared/path-within.js';

/** What `session/new`, `load` and `resume` give for the session's tools. */
interface ToolParams {
  additionalDirectories?: string[] | null | undefined;
  mcpServers?: McpServer[] | null | undefined;
  /** The MCP tools a stored session offered last (`session/load`, `session/resume`), offered until its servers are ready. */
  savedMcpTools?: SavedMcpTool[] | undefined;
}

/**
 * `session/new`: a session with the default model, saved, its tools started. A client may give
 * the session instructions of its own in `_meta["openai-acp"].instructions` (a string, kept with
 * the session and added after the system prompt of every request).
 */
export async function newSession(
  state: AgentState,
  params: ToolParams & { cwd: string; _meta?: Record<string, unknown> | null | undefined },
  client: AgentContext,
  peer: ClientPeer,
) {
  await checkDirs(state, params);
  peer.checkRoom(state.sessions.idsHeldBy(peer));
  const instructions = sessionInstructions(params._meta);
  await state.endpointsKnown();
  const session = state.sessions.create(params.cwd, await state.defaultModel());
  if (instructions) session.options[INSTRUCTIONS_OPTION] = instructions;
  try {
    const store = await state.store;
    // Removed again if it ends without a kept turn (no prompt reached the model: no empty session left).
    await store.create({ sessionId: session.id, cwd: session.cwd, createdAt: session.createdAt }, [], { removeWhenBlank: true });
    if (instructions) await store.append(session.id, { type: 'meta', at: session.createdAt, options: { [INSTRUCTIONS_OPTION]: instructions } });
  } catch (error) {
    state.logger.error('could not save the new session; it will not survive a restart', { sessionId: session.id, error: (error as Error).message });
  }
  state.picker.attach(session, await state.registry.models());
  await openTools(state, session, params, peer);
  state.hold(session, peer);
  state.logger.debug('session created', { sessionId: session.id, cwd: params.cwd });
  announceSession(state, client, session);
  return { sessionId: session.id, ...sessionResponse(state, session) };
}

/** Longest client instructions accepted, in characters. */
const MAX_INSTRUCTIONS = 100_000;

/**
 * The client's instructions from `_meta["openai-acp"].instructions`, trimmed; `undefined` when absent or blank.
 * @throws {RequestError} -32602 when it is not a string or longer than 100,000 characters.
 */
function sessionInstructions(meta: Record<string, unknown> | null | undefined): string | undefined {
  const ours = meta?.[AGENT_NAME];
  const value = ours && typeof ours === 'object' ? (ours as Record<string, unknown>)['instructions'] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_INSTRUCTIONS) {
    throw RequestError.invalidParams({}, `_meta["${AGENT_NAME}"].instructions must be a string of at most ${MAX_INSTRUCTIONS} characters`);
  }
  return value.trim() || undefined;
}

/** `session/load`: a stored session held again, its history replayed as `session/update`s. */
export async function loadSession(state: AgentState, params: ToolParams & { cwd: string; sessionId: string }, client: AgentContext, peer: ClientPeer) {
  await checkDirs(state, params);
  peer.checkRoom(state.sessions.idsHeldBy(peer), params.sessionId);
  const stored = await loadStoredInRoot(state, params.sessionId);
  const session = await restoreSession(state, stored);
  await openTools(state, session, { ...params, savedMcpTools: stored.mcpTools }, peer);
  state.hold(session, peer);
  // The whole history as on disk: the session itself holds only its live part.
  await updateSender(client, session.id)(replayUpdates(stored.records, peer.features));
  state.logger.debug('session loaded', { sessionId: session.id, records: stored.records.length });
  announceSession(state, client, session);
  return sessionResponse(state, session);
}

/** `session/resume`: a stored session held again, without replay. */
export async function resumeSession(state: AgentState, params: ToolParams & { cwd: string; sessionId: string }, client: AgentContext, peer: ClientPeer) {
  await checkDirs(state, params);
  peer.checkRoom(state.sessions.idsHeldBy(peer), params.sessionId);
  const stored = await loadStoredInRoot(state, params.sessionId);
  const session = await restoreSession(state, stored);
  await openTools(state, session, { ...params, savedMcpTools: stored.mcpTools }, peer);
  state.hold(session, peer);
  state.logger.debug('session resumed', { sessionId: session.id, records: session.records.length });
  announceSession(state, client, session);
  return sessionResponse(state, session);
}

/**
 * `session/fork` (unstable): a copy of a session the connection holds (`session-authority.ts`):
 * conversation, plan, checkpoints, mode, model; saved, its tools started in the fork's own `cwd`.
 */
export async function forkSession(state: AgentState, params: ToolParams & { cwd: string; sessionId: string }, client: AgentContext, peer: ClientPeer) {
  await checkDirs(state, params);
  peer.checkRoom(state.sessions.idsHeldBy(peer));
  await state.endpointsKnown();
  const session = await copySession({ sourceId: params.sessionId, cwd: params.cwd, sessions: state.sessions, store: await state.store, logger: state.logger });
  state.picker.attach(session, await state.registry.models());
  await openTools(state, session, params, peer);
  state.hold(session, peer);
  announceSession(state, client, session);
  return { sessionId: session.id, ...sessionResponse(state, session) };
}

/**
 * `session/list`: the stored sessions, newest first, one page at a time; on a server with a
 * workspace root (`serve --root`), only those whose `cwd` is inside it (a session of another root
 * is none of this server's clients' business).
 * @throws {RequestError} -32602 for a cursor this agent did not give.
 */
export async function listSessions(state: AgentState, params: { cwd?: string | null | undefined; cursor?: string | null | undefined }) {
  const all = await (await state.store).list();
  const root = state.root;
  const mayUse = root === undefined ? all : all.filter((session) => isWithin(session.cwd, root));
  try {
    return paginateSessions(mayUse, { cwd: params.cwd ?? null, cursor: params.cursor ?? null });
  } catch (error) {
    if (error instanceof InvalidCursorError) throw RequestError.invalidParams({ cursor: params.cursor }, error.message);
    throw error;
  }
}

/**
 * `session/close` from the connection of `peer`: lets go of its hold on the session (`live`, when
 * in memory; the caller checked it holds it). A session no other connection holds is let go of
 * (its turn cancelled, its tools stopped); the stored copy stays.
 * @throws {RequestError} -32002 for a session neither in memory nor stored.
 */
export async function closeSession(state: AgentState, params: { sessionId: string }, peer: ClientPeer, live: LiveSession | undefined) {
  const { sessionId } = params;
  live?.removeHolder(peer);
  if (live && live.holderCount > 0) return {};
  if (!(await state.close(sessionId))) await loadStored(state, sessionId);
  return {};
}

/**
 * `session/delete` from the connection of `peer`: lets go of the session, for every connection,
 * and removes its stored copy. An unknown id, or one outside the server's root, succeeds doing nothing.
 * @throws {RequestError} -32600 with `{sessionId, reason: "running"}` while a turn of another
 *   connection's prompt runs (that connection would be left without an answer).
 */
export async function deleteSession(state: AgentState, params: { sessionId: string }, peer: ClientPeer, live: LiveSession | undefined) {
  const { sessionId } = params;
  if (live?.runningElsewhere(peer))
    throw RequestError.invalidRequest(
      { sessionId, reason: 'running' },
      `Session ${sessionId} is running a turn another connection asked for; delete it once that turn has ended (or after session/cancel)`,
    );
  if (!live && state.root !== undefined) {
    const stored = await (await state.store).load(sessionId).catch(() => undefined);
    if (stored && !isWithin(stored.cwd, state.root)) return {};
  }
  await state.close(sessionId);
  await (await state.store).delete(sessionId).catch((error: unknown) => {
    throw storeRefusal(error, sessionId);
  });
  return {};
}

/**
 * What a connection that closed held is let go of (its turns were cancelled with its requests):
 * each session no other connection holds, as `session/close` would. Never rejects.
 */
export async function releasePeer(state: AgentState, peer: ClientPeer): Promise<void> {
  state.peers.delete(peer);
  const lettingGo = state.sessions.idsHeldBy(peer).filter((sessionId) => {
    const live = state.sessions.live(sessionId);
    live?.removeHolder(peer);
    return !live || live.holderCount === 0;
  });
  await Promise.all(lettingGo.map((sessionId) => state.close(sessionId).catch(() => false)));
}

/**
 * Starts the session's tools (roots, MCP servers) for a new, loaded or resumed session; MCP servers
 * only with tools on, offering `params.savedMcpTools` until they are ready.
 */
async function openTools(state: AgentState, session: Session, params: ToolParams, peer: ClientPeer): Promise<void> {
  const elicitation = peer.features.elicitation;
  const live = state.sessions.of(session);
  live.tools = await state.tools.open(
    live.tools,
    session.cwd,
    state.config.tools ? { ...params, elicitation } : { additionalDirectories: params.additionalDirectories, elicitation },
  );
}

/**
 * Refuses a `cwd` that is not absolute and, on a server with a workspace root, a `cwd` or an
 * additional directory outside it, and a stdio MCP server its operator did not allow.
 * @throws RequestError `-32602` naming the field.
 */
async function checkDirs(state: AgentState, params: ToolParams & { cwd: string }): Promise<void> {
  checkCwd(params.cwd, state.logger);
  await checkInsideRoot(params.cwd, state.root);
  for (const [index, dir] of (params.additionalDirectories ?? []).entries()) await checkInsideRoot(dir, state.root, `additionalDirectories[${index}]`);
  checkMcpServers(params.mcpServers, state.allowances);
}

/**
 * What a client hears about a session it just opened (new, load, resume, fork), once the answer
 * naming the session has gone out: `available_commands_update` (built-ins, the user's command
 * files, the MCP servers' prompts: `user-commands.ts`) and the context meter
 * (`session-window.ts`).
 */
function announceSession(state: AgentState, client: AgentContext, session: Session): void {
  setImmediate(() => {
    const live = state.slotOf(session);
    void state.commands
      .refresh(live, session.cwd, live.tools?.mcp, true)
      .then((availableCommands) =>
        client.notify('session/update', {
          sessionId: session.id,
          update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands ?? [...SLASH_COMMANDS] },
        }),
      )
      .catch(() => undefined);
  });
  state.windows.announceTo(client, session);
}
