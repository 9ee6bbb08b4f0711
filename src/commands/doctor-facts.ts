/**
 * What `openai-acp doctor` finds out about one endpoint, through the agent's own request path
 * (`probes.ts`): its model list, a one-token completion, the model's load state and context
 * window, the native API or llama.cpp's settings, and whether reasoning effort is accepted. The
 * verdicts on these facts are `doctor-checks.ts`'s.
 */
import { cloudAuthKind } from '../endpoints/cloud-auth.js';
import { createEndpoint } from '../endpoints/endpoint.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import { modelLoadState } from '../endpoints/model-loading.js';
import type { OllamaWindowFacts } from '../endpoints/ollama-native.js';
import { readLlamaCppProps } from '../endpoints/server-identity.js';
import { secretsOf } from '../config/config.js';
import { PROVIDER_PROFILES } from '../config/provider-profiles.js';
import { reasoningEffortLevels, resolveEndpoint } from '../config/providers.js';
import { ProviderHttpError, ProviderReportedError } from '../openai/errors.js';
import { missingV1, sendsCredentials } from '../openai/failure-hints.js';
import { providerOf } from './doctor-endpoint.js';
import { llamaCppRows } from './doctor-llamacpp.js';
import { readSlotRows } from './doctor-slots.js';
import { loadedRows } from './doctor-loading.js';
import { ollamaRows } from './doctor-ollama.js';
import { probeWindow, type WindowFacts } from './doctor-window.js';
import { probeCompletion, probeModels, type CompletionProbe, type ModelsProbe, type ProbeDeps } from './probes.js';

/** Whether and how reasoning effort was checked. */
type ReasoningFacts = { kind: 'not-applicable'; why: string } | { kind: 'probed'; level: string; parameter: string; result: CompletionProbe };

/** Everything found about one endpoint. */
export interface EndpointFacts {
  /** The configured model id on this endpoint. */
  model: string;
  /** Where the key comes from, for fixes: `OPENAI_API_KEY`, or `apiKeyEnv` of the config file… */
  keySetting: string;
  /** Whether a key is sent. */
  hasKey: boolean;
  /** The base URL setting and its value, for fixes. */
  baseUrlSetting: string;
  baseUrl: string;
  /** Where the model is configured, for fixes: `OPENAI_MODEL` or the config file's `model`. */
  modelSetting: string;
  models: ModelsProbe;
  /** `undefined` when not attempted (the endpoint could not be reached). */
  completion: CompletionProbe | undefined;
  /** `undefined` when not checked (the completion failed). */
  reasoning: ReasoningFacts | undefined;
  /** Secret values to scrub from provider messages. */
  secrets: readonly string[];
  /** Keyless cloud credentials in use (`AWS SigV4 signature`, `Entra ID token`), and the fix when refused. */
  credentials?: { what: string; fix: string } | undefined;
  /** After a 404 of the completion: the base URL with `/v1` added, when that one lists models. */
  missingV1?: string | undefined;
  /** The context window found after a working completion; `undefined`: not checked (no line). */
  window?: WindowFacts | undefined;
}

/** The settings an endpoint's fixes name (they differ for the environment's endpoint and a config file's provider). */
export interface SettingNames {
  /** Where its key is set, e.g. `OPENAI_API_KEY`. */
  key: string;
  /** Where its base URL is set, e.g. `--base-url`. */
  baseUrl: string;
  /** Where its model is set, e.g. `OPENAI_MODEL`. */
  model: string;
  /** The key's variable shown beside the configuration, '' when the key comes from the config file. */
  keyShown: string;
}

/** A one-token request, the doctor's completion check. */
type ProbeRequest = Parameters<typeof probeCompletion>[1];

/**
 * Checks one endpoint: models (unless `listed` already says), then (unless unreachable) the
 * completion, usage and reasoning effort, and the rows about the server (`ollama`, `llamacpp`,
 * `loaded`) printed after its checks. `configuredWindow` is `OPENAI_CONTEXT_WINDOW` (tokens).
 * Never rejects for network problems: each is a fact.
 */
export async function checkEndpoint(
  settings: NamedEndpointSettings,
  names: SettingNames,
  deps: ProbeDeps,
  configuredWindow: number | undefined,
  listed?: ModelsProbe,
): Promise<EndpointFacts & { ollama?: string[]; llamacpp?: string[]; loaded: string[] }> {
  const models = listed ?? (await probeModels(settings, deps));
  const unreachable = models.kind === 'unreachable';
  const request: ProbeRequest = { model: settings.model, messages: [{ role: 'user' as const, content: 'Reply with the single word OK.' }], maxTokens: 1 };
  // Before the completion, which makes the server load the model.
  const loadingQuery = unreachable ? undefined : PROVIDER_PROFILES[providerOf(settings).id]?.loadingQuery;
  const loaded = loadingQuery
    ? await modelLoadState(loadingQuery, settings.baseUrl, settings.model, {
        headers: settings.apiKey ? { ...settings.headers, authorization: `Bearer ${settings.apiKey}` } : settings.headers,
        fetch: deps.fetch,
      })
    : undefined;
  const completion = unreachable ? undefined : await probeCompletion(settings, request, deps);
  // Only after a 404: does the base URL lack its /v1?
  let v1: string | undefined;
  if (completion && !completion.ok && completion.error instanceof ProviderHttpError && completion.error.status === 404) {
    const endpoint = resolveEndpoint(settings);
    v1 = await missingV1(endpoint.chatUrl, { apiKey: endpoint.bearerKey, headers: endpoint.headers, fetch: deps.fetch }, deps.timeoutMs);
  }
  // After the completion, so that a local server has the model loaded: its runtime window is then known.
  const listedWindow = models.kind === 'listed' ? models.models.find((m) => m.id === settings.model)?.contextWindow : undefined;
  const window = completion?.ok ? await probeWindow(settings, configuredWindow, listedWindow, deps) : undefined;
  // A server with a native chat API (Ollama): which API, and the windows, once the probe loaded the model.
  const nativeProfile = PROVIDER_PROFILES[providerOf(settings).id]?.nativeChat;
  const native =
    nativeProfile && !unreachable
      ? await createEndpoint(settings, { logger: deps.logger, fetch: deps.fetch, enabled: false, learned: deps.learned }).nativeChat?.describe(settings.model)
      : undefined;
  // llama.cpp: the window it runs, whether its template takes tools (/props), and its slots.
  const llamaHeaders = settings.apiKey ? { ...settings.headers, authorization: `Bearer ${settings.apiKey}` } : settings.headers;
  const props =
    PROVIDER_PROFILES[providerOf(settings).id]?.contextWindowQuery === 'llamacpp-props' && !unreachable
      ? { facts: await readLlamaCppProps(settings.baseUrl, { headers: llamaHeaders, fetch: deps.fetch }) }
      : undefined;
  const llamacpp = props
    ? [...llamaCppRows(props.facts), ...(await readSlotRows(settings.baseUrl, props.facts?.slots, { headers: llamaHeaders, fetch: deps.fetch }))]
    : undefined;
  const reasoning = completion?.ok ? await probeReasoning(settings, request, native, deps) : undefined;
  return {
    model: settings.model,
    keySetting: names.key,
    hasKey: sendsCredentials({ apiKey: settings.apiKey, headers: settings.headers }),
    baseUrlSetting: names.baseUrl,
    baseUrl: settings.baseUrl,
    modelSetting: names.model,
    models,
    completion,
    reasoning,
    secrets: secretsOf(settings),
    credentials: keylessCredentials(settings),
    missingV1: v1,
    window,
    ...(nativeProfile && !unreachable ? { ollama: ollamaRows(native) } : {}),
    ...(llamacpp ? { llamacpp } : {}),
    loaded: loadedRows(loaded, loadingQuery !== undefined),
  };
}

/**
 * Whether the model takes a reasoning effort (after a working completion): not applicable when
 * its provider offers none for it or an Ollama model does not think (`native`), else `request`
 * sent again with the lowest level.
 */
async function probeReasoning(
  settings: NamedEndpointSettings,
  request: ProbeRequest,
  native: OllamaWindowFacts | undefined,
  deps: ProbeDeps,
): Promise<ReasoningFacts> {
  const provider = providerOf(settings);
  const profile = PROVIDER_PROFILES[provider.id];
  const levels = profile ? reasoningEffortLevels(profile, settings.model).filter((level) => level !== 'default') : [];
  if (!profile || levels.length === 0) {
    return { kind: 'not-applicable', why: `${profile?.label ?? provider.id} offers no reasoning effort for ${settings.model}` };
  }
  if (native?.api.kind === 'native' && native.thinks === false) {
    return { kind: 'not-applicable', why: `${settings.model} does not think (its /api/show capabilities lack "thinking"), so no think is sent` };
  }
  const level = levels.includes('low') ? 'low' : levels[0]!;
  const parameter = native?.api.kind === 'native' ? 'think' : profile.reasoningEffort.spelling === 'reasoning.effort' ? 'reasoning.effort' : 'reasoning_effort';
  let result = await probeCompletion(settings, { ...request, reasoningEffort: level }, deps);
  // An adaptive correction may have dropped the parameter to make the request pass: that is a refusal.
  if (result.ok && !('reasoning_effort' in result.sent || 'reasoning' in result.sent || 'think' in result.sent)) {
    const url = settings.chatCompletionsUrl.split('?')[0]!;
    result = {
      ok: false,
      error: new ProviderReportedError(url, `the endpoint rejected ${parameter}, so openai-acp leaves it out for this model`),
      status: undefined,
    };
  }
  return { kind: 'probed', level, parameter, result };
}

/** How a keyless Bedrock or Azure endpoint authenticates, for the authentication line. */
function keylessCredentials(settings: NamedEndpointSettings): EndpointFacts['credentials'] {
  const kind = cloudAuthKind(
    resolveEndpoint({ baseUrl: settings.baseUrl, query: settings.query, apiKey: settings.apiKey, headers: settings.headers, provider: settings.provider }),
  );
  if (kind === 'aws-sigv4')
    return {
      what: 'AWS SigV4 signature',
      fix:
        'the IAM identity needs bedrock:InvokeModel (and bedrock:InvokeModelWithResponseStream) on the model, in ' +
        'this region; check the region and `aws sts get-caller-identity`',
    };
  if (kind === 'azure-entra-id')
    return {
      what: 'Entra ID token',
      fix: 'give the identity the "Cognitive Services OpenAI User" role on the Azure OpenAI resource (role assignments can take a few minutes)',
    };
  return undefined;
}
