/**
 * A change to the endpoints (`providers/set`, `providers/disable`, or a configuration read again
 * by `authenticate`) that keeps every held session's model value meaning the same model.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { AgentState } from '../app/agent-state.js';

/**
 * Applies a change to the endpoints (providers/set, providers/disable, or a configuration read
 * again by `authenticate`) and keeps every model value meaning the same model: values are
 * re-spelled when the number of endpoints crosses one (`m` ⇄ `id/m`), a value whose endpoint is
 * gone becomes the default (with `keepDefaultModel`, the default model value chosen by `change`
 * stays as it is). Each held session gets its new lists as `config_option_update`.
 */
export async function changeProviders(state: AgentState, client: AgentContext, change: () => void, { keepDefaultModel = false } = {}): Promise<void> {
  const { sessions, picker } = state;
  const before = (value: string | undefined) => {
    const target = value === undefined ? undefined : state.registry.resolve(value);
    return target && { id: target.endpoint.settings.id, model: target.model };
  };
  const defaultTarget = before(state.chosen.model);
  const held = sessions.all().map((session) => ({ session, target: before(session.model) }));
  change();
  const respell = (target: { id: string; model: string } | undefined) =>
    target && state.registry.get(target.id) ? state.registry.valueOf(target.id, target.model) : undefined;
  // A configuration read again brings its own default model.
  if (!keepDefaultModel) state.chosen = { ...state.chosen, model: respell(defaultTarget) };
  const models = await state.registry.models();
  const fallback = await state.defaultModel();
  for (const { session, target } of held) {
    session.model = respell(target) ?? fallback;
    picker.attach(session, models);
    await client
      .notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: picker.configOptions(session) } })
      .catch(() => undefined);
  }
}
