/**
 * Session configuration methods: `session/set_config_option` (model, reasoning effort, mode), the
 * legacy `session/set_mode` and `session/set_model`, and the configuration part of every session
 * answer. Each choice is saved with the session.
 *
 * Source: ACP session config options https://agentclientprotocol.com/protocol/session-config-options
 * and session modes https://agentclientprotocol.com/protocol/session-modes.
 */
import { RequestError, type AgentContext, type SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import type { Session } from '../sessions/session-manager.js';
import type { AgentState } from './agent-state.js';
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
 * The configuration part of a session answer (`session/new`, `load`, `resume`): config options,
 * the legacy `models` (not in the schema; responses are not validated) and, with tools, the modes.
 */
export function sessionAnswer(state: AgentState, session: Session) {
  return {
    configOptions: configOptions(state, session),
    models: state.picker.legacyModels(session),
    ...(state.config.tools ? { modes: legacyModes(session) } : {}),
  };
}

/**
 * `session/set_config_option`: the session's model, reasoning effort or mode.
 * @throws {RequestError} -32002 for an unknown session, -32602 for an unknown option or value.
 */
export async function setConfigOption(state: AgentState, params: { sessionId: string; configId: string; value: unknown }, client?: AgentContext) {
  const session = state.session(params.sessionId);
  if (params.configId === MODEL_CONFIG_ID) {
    state.picker.select(session, params.value);
    await saveSetting(state, session, { model: session.model });
    if (client) state.windows.announceTo(client, session);
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
  return { configOptions: configOptions(state, session) };
}

/**
 * Legacy `session/set_mode`: the same mode as the `mode` config option, announced to the client
 * as a `config_option_update`.
 * @throws {RequestError} -32602 when tools (and so modes) are off or the mode is unknown.
 */
export async function setMode(state: AgentState, params: { sessionId: string; modeId: string }, client: AgentContext) {
  const session = state.session(params.sessionId);
  if (!state.config.tools) throw RequestError.invalidParams({ modeId: params.modeId }, 'Modes are off: OPENAI_ACP_TOOLS=off gives a chat bridge without tools');
  selectMode(session, params.modeId);
  await saveSetting(state, session, { options: { [MODE_CONFIG_ID]: sessionMode(session) } });
  state.logger.debug('mode set', { sessionId: session.id, mode: sessionMode(session) });
  await client
    .notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: configOptions(state, session) } })
    .catch(() => undefined);
  return {};
}

/** Legacy `session/set_model` (Open Design's fallback, acp-ai-provider, acp-factory). */
export async function setModel(state: AgentState, params: { sessionId: string; modelId: string }, client?: AgentContext) {
  const session = state.session(params.sessionId);
  state.picker.select(session, params.modelId);
  await saveSetting(state, session, { model: session.model });
  if (client) state.windows.announceTo(client, session);
  state.logger.debug('model selected', { sessionId: session.id, model: session.model });
  return {};
}

/** Keeps a setting with the session; a store failure is logged, the setting still holds for now. */
async function saveSetting(state: AgentState, session: Session, change: { model?: string; options?: Record<string, string> }): Promise<void> {
  try {
    await (await state.store).append(session.id, { type: 'meta', at: new Date().toISOString(), ...change });
  } catch (error) {
    state.logger.warn('could not save the session setting', { sessionId: session.id, error: (error as Error).message });
  }
}
