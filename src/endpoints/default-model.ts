/**
 * Which model an endpoint uses when none is named. Only profiles with `fixedDefaultModel` (OpenAI,
 * Azure) have a sensible fixed default (`gpt-4o`, or the Azure deployment the URL names); every
 * other server (Ollama, vLLM, LM Studio, llama.cpp, LiteLLM, a generic one, the cloud gateways)
 * serves its own ids, so its default is the first chat model it lists, as for a local server
 * found by the zero-configuration search and a config-file provider without `models`.
 */
import { PROVIDER_PROFILES, type ProviderId } from '../config/provider-profiles.js';
import { createEndpoint, type EndpointDeps } from './endpoint.js';
import type { NamedEndpointSettings } from './endpoint-registry.js';
import { pickLocalModel } from './local-discovery.js';

/** Whether an endpoint of this family without a named model takes the first chat model it lists (its profile has no `fixedDefaultModel`). */
export function takesListedModel(provider: ProviderId): boolean {
  return PROVIDER_PROFILES[provider].fixedDefaultModel !== true;
}

/** The model an endpoint really uses, and why, in words for `doctor`. */
export interface ModelChoice {
  model: string;
  /** e.g. `the first chat model the endpoint lists, as OPENAI_MODEL is not set; …`. */
  why: string;
}

/**
 * The model of `settings` and the reason: the named one, or for a stand-in the first chat model
 * the endpoint lists (`GET /models` through the endpoint's own catalog, bounded by
 * `deps.modelsTimeoutMs`), or the stand-in itself when the endpoint lists none.
 *
 * @param namedWhy - the reason given when the model is not a stand-in, e.g. `set by OPENAI_MODEL`.
 * Never rejects.
 */
export async function chooseModel(settings: NamedEndpointSettings, namedWhy: string, deps: EndpointDeps): Promise<ModelChoice> {
  if (!settings.modelIsStandIn) return { model: settings.model, why: namedWhy };
  const listed = await createEndpoint(settings, deps).catalog.list();
  const picked = pickLocalModel(listed);
  const unset = settings.source === 'config file' ? 'the provider has no "models" in the config file' : 'OPENAI_MODEL is not set';
  // The catalog offers the stand-in alone only when the endpoint lists nothing.
  if (!picked || (picked === settings.model && listed.length === 1)) {
    return {
      model: settings.model,
      why:
        `${unset} and the endpoint lists no model, so the stand-in ${settings.model} is sent: set ` +
        `${settings.source === 'config file' ? '"models"' : 'OPENAI_MODEL'}`,
    };
  }
  const server = settings.source === 'local server' ? 'the local server found' : 'the endpoint';
  return { model: picked, why: `the first chat model ${server} lists, as ${unset}; embedding and reranking models are skipped` };
}
