/**
 * What the agent knows of its endpoints outside any session, for a front door other than ACP
 * (AgentConnect's `models.*` and status): the models, the default model, a model's window.
 */
import type { ModelInfo } from '../endpoints/model-catalog.js';
import type { AgentState } from '../app/agent-state.js';

export type { ModelInfo } from '../endpoints/model-catalog.js';

/** What the agent knows of its endpoints, outside any session. Every method waits for the endpoints to be known and never rejects. */
export interface AgentCatalog {
  /**
   * Every model of the endpoints in use (model values as `session/set_config_option` takes them),
   * default endpoint first; `contextWindow` in tokens where the endpoint lists it.
   */
  models(): Promise<ModelInfo[]>;
  /** The model value a new session starts with; `undefined` without an endpoint. */
  defaultModel(): Promise<string | undefined>;
  /**
   * The context window of model value `model` in tokens, by the agent's precedence (configured,
   * learned, the server's runtime report, the model list, the trained window; the server may be
   * asked); `undefined` when unknown.
   */
  window(model: string): Promise<number | undefined>;
  /**
   * `configured`: the configuration is valid and names an endpoint; `answers`: the default
   * endpoint's `GET /models` listed models: its last answer, or asked now with `recheck` (which
   * also renews the models listed).
   */
  status(options?: { recheck?: boolean }): Promise<{ configured: boolean; answers: boolean }>;
}

/** The catalog over the agent's `state`. */
export function agentCatalog(state: AgentState): AgentCatalog {
  return {
    models: async () => {
      await state.endpointsKnown();
      return state.registry.models();
    },
    defaultModel: async () => {
      await state.endpointsKnown();
      return state.whyNoTurn() ? undefined : state.defaultModel();
    },
    window: async (model) => {
      await state.endpointsKnown();
      if (state.whyNoTurn()) return undefined;
      const listed = (await state.registry.models()).find((entry) => entry.id === model)?.contextWindow;
      return (await state.windows.ofModel(model, listed))?.window;
    },
    status: async (options) => {
      await state.endpointsKnown();
      const first = state.whyNoTurn() ? undefined : state.registry.list()[0];
      if (!first) return { configured: false, answers: false };
      await (options?.recheck ? first.catalog.refresh() : first.catalog.list());
      return { configured: true, answers: first.catalog.answered === true };
    },
  };
}
