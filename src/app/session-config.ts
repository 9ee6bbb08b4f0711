/**
 * Session configuration methods: `session/set_config_option` (model, reasoning effort, mode), the
 * legacy `session/set_mode` and `session/set_model`, and the configuration part of every session
 * answer. Each choice is saved with the session.
 *
 * Source: ACP session config options https://agentclientprotocol.com/protocol/session-config-options
 * and session modes https://agentclientprotocol.com/protocol/session-modes.
 */
import { RequestError, type SessionConfigOption, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import type { Session } from '../sessions/session.js';
import type { AgentState } from './agent-state.js';
import { updateSender, type ClientPeer } from './client-peer.js';
import type { LiveSession } from './live-session.js';
import { MODEL_CONFIG_ID, THOUGHT_LEVEL_CONFIG_ID } from './model-picker.js';
import { legacyModes, MODE_CONFIG_ID, modeConfigOption, selectMode, sessionMode } from '../loop/session-modes.js';

/** The parameters of the legacy `session/set_model` (not in the SDK's stable schema). */
export const setModelParams = z.object({ sessionId: z.string(), modelId: z.string() }).passthrough();

/** The session option holding the client's own instructions (`_meta["openai-acp"].instructions` of `session/new`). */
export const INSTRUCTIONS_OPTION = 'instructions';

/** Every config option of the session: model, reasoning effort, and the mode when tools are on. */
export function configOptions(state: AgentState, session: Session): SessionConfigOption[] {
  return state.config.tools ? [...state.picker.configOptions(session), modeConfigOption(session)] : state.picker.configOptions(session);
}

/**
 * The configuration part of a session response (`session/new`, `load`, `resume`): config options,
 * the legacy `models` (not in the schema; responses are not validated) and, with tools, the modes.
 */
export function sessionResponse(state: AgentState, session: Session) {
  return {
    configOptions: configOptions(state, session),
    models: state.picker.legacyModels(session),
    ...(state.config.tools ? { modes: legacyModes(session) } : {}),
  };
}

/**
 * `session/set_config_option` from the connection of `peer`: the session's model, reasoning effort
 * or mode. Every other holder of the session hears of it (`config_option_update`, and
 * `current_mode_update` for the mode); the asking one reads it in the answer.
 * @throws {RequestError} -32602 for an unknown option or value.
 */
export async function setConfigOption(
  state: AgentState,
  params: { sessionId: string; configId: string; value: unknown },
  live: LiveSession,
  peer?: ClientPeer,
) {
  const { session } = live;
  if (params.configId === MODEL_CONFIG_ID) {
    state.picker.select(session, params.value);
    await saveSetting(state, session, { model: session.model });
    announceWindow(state, live);
  } else if (params.configId === THOUGHT_LEVEL_CONFIG_ID && state.thoughtLevels(session).length > 0) {
    state.picker.selectThoughtLevel(session, params.value);
    await saveSetting(state, session, { options: { [THOUGHT_LEVEL_CONFIG_ID]: session.options[THOUGHT_LEVEL_CONFIG_ID]! } });
  } else if (params.configId === MODE_CONFIG_ID && state.config.tools) {
    selectMode(session, params.value);
    await saveSetting(state, session, { options: { [MODE_CONFIG_ID]: sessionMode(session) } });
  } else {
    const valid = configOptions(state, session)
      .map((option) => option.id)
      .join(', ');
    throw RequestError.invalidParams({ configId: params.configId }, `Unknown config option ${JSON.stringify(params.configId)}; valid: ${valid}`);
  }
  state.logger.debug('config option set', { sessionId: session.id, configId: params.configId, value: String(params.value) });
  void live.tell(changeUpdates(state, session, params.configId === MODE_CONFIG_ID), peer);
  return { configOptions: configOptions(state, session) };
}

/**
 * Legacy `session/set_mode` from the connection of `peer`: the same mode as the `mode` config
 * option. The asking client is told with a `config_option_update`; every other holder of the
 * session with a `current_mode_update` and a `config_option_update`.
 * @throws {RequestError} -32602 when tools (and so modes) are off or the mode is unknown.
 */
export async function setMode(state: AgentState, params: { sessionId: string; modeId: string }, live: LiveSession, peer: ClientPeer) {
  const { session } = live;
  if (!state.config.tools) throw RequestError.invalidParams({ modeId: params.modeId }, 'Modes are off: OPENAI_ACP_TOOLS=off gives a chat bridge without tools');
  selectMode(session, params.modeId);
  await saveSetting(state, session, { options: { [MODE_CONFIG_ID]: sessionMode(session) } });
  state.logger.debug('mode set', { sessionId: session.id, mode: sessionMode(session) });
  const updates = changeUpdates(state, session, true);
  const asker = peer.client ? updateSender(peer.client, session.id)(updates.slice(-1)).catch(() => undefined) : undefined;
  await Promise.all([live.tell(updates, peer), asker]);
  return {};
}

/** Legacy `session/set_model` (Open Design's fallback, acp-ai-provider, acp-factory); every other holder hears it as a `config_option_update`. */
export async function setModel(state: AgentState, params: { sessionId: string; modelId: string }, live: LiveSession, peer?: ClientPeer) {
  const { session } = live;
  state.picker.select(session, params.modelId);
  await saveSetting(state, session, { model: session.model });
  announceWindow(state, live);
  state.logger.debug('model selected', { sessionId: session.id, model: session.model });
  void live.tell(changeUpdates(state, session, false), peer);
  return {};
}

/** What a holder is told of a configuration change: `current_mode_update` when the mode changed, then `config_option_update` with every option. */
function changeUpdates(state: AgentState, session: Session, mode: boolean): SessionUpdate[] {
  const options: SessionUpdate = { sessionUpdate: 'config_option_update', configOptions: configOptions(state, session) };
  return mode ? [{ sessionUpdate: 'current_mode_update', currentModeId: sessionMode(session) }, options] : [options];
}

/** The context meter of the session's model, to every holder (the window follows the model). */
function announceWindow(state: AgentState, live: LiveSession): void {
  for (const client of live.clients()) state.windows.announceTo(client, live.session);
}

/** Keeps a setting with the session; a store failure is logged, the setting still holds for now. */
async function saveSetting(state: AgentState, session: Session, change: { model?: string; options?: Record<string, string> }): Promise<void> {
  try {
    await (await state.store).append(session.id, { type: 'meta', at: new Date().toISOString(), ...change });
  } catch (error) {
    state.logger.warn('could not save the session setting', { sessionId: session.id, error: (error as Error).message });
  }
}
