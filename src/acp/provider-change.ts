/**
 * A change to the endpoints (`providers/set`, `providers/disable`, or a configuration read again
 * by `authenticate`) that keeps every held session's model value meaning the same model.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { EndpointPlan } from './agent.js';
import type { ModelPicker } from './model-picker.js';

/** The agent's state a provider change reads and updates. */
export interface ProviderChangeState {
  registry(): EndpointRegistry;
  plan(): EndpointPlan;
  setPlan(plan: EndpointPlan): void;
  sessions: SessionManager;
  picker: ModelPicker;
  /** The model value of a session whose endpoint is gone. */
  defaultModel(): Promise<string>;
}

/**
 * Applies a change to the endpoints (providers/set, providers/disable, or a configuration read
 * again by `authenticate`) and keeps every model value meaning the same model: values are
 * re-spelled when the number of endpoints crosses one (`m` ⇄ `id/m`), a value whose endpoint is
 * gone becomes the default. Each held session gets its new lists as `config_option_update`.
 */
export async function changeProviders(state: ProviderChangeState, client: AgentContext, change: () => void, { keepPlanModel = false } = {}): Promise<void> {
  const { sessions, picker } = state;
  const before = (value: string | undefined) => {
    const target = value === undefined ? undefined : state.registry().resolve(value);
    return target && { id: target.endpoint.settings.id, model: target.model };
  };
  const planTarget = before(state.plan().model);
  const held = sessions.all().map((session) => ({ session, target: before(session.model) }));
  change();
  const respell = (target: { id: string; model: string } | undefined) => (target && state.registry().get(target.id) ? state.registry().valueOf(target.id, target.model) : undefined);
  // A configuration read again brings its own default model.
  if (!keepPlanModel) state.setPlan({ ...state.plan(), model: respell(planTarget) });
  const models = await state.registry().models();
  const fallback = await state.defaultModel();
  for (const { session, target } of held) {
    session.model = respell(target) ?? fallback;
    picker.attach(session, models);
    await client
      .notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: picker.configOptions(session) } })
      .catch(() => undefined);
  }
}
