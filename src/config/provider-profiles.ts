/**
 * Provider profiles as data: what really differs between OpenAI Chat Completions-compatible
 * endpoints (auth header, default query, `/models` path, parameter spellings, reasoning-effort
 * levels) and how a base URL is recognized. Data only: the functions that read it (detection,
 * parameter choice, endpoint resolution) live in `providers.ts`. Everything else is the same for
 * every provider.
 *
 * Sources (each profile's `docs` names its own):
 * - OpenAI `max_completion_tokens` / `reasoning_effort`: https://platform.openai.com/docs/api-reference/chat/create
 * - Azure classic deployments, `api-version` (latest GA data-plane inference `2024-10-21`) and the
 *   `api-key` header: https://learn.microsoft.com/azure/ai-services/openai/reference ; v1 API:
 *   https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle
 * - Bedrock (`/openai/v1`, Bedrock API key as Bearer, no other operation than chat completions):
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/inference-chat-completions.html
 * - OpenRouter `reasoning: {effort}`: https://openrouter.ai/docs/use-cases/reasoning-tokens
 */

/** Provider families with a profile. `generic` is any other OpenAI-compatible server. */
export type ProviderId =
  | 'openai'
  | 'azure'
  | 'bedrock'
  | 'ollama'
  | 'vllm'
  | 'lmstudio'
  | 'llamacpp'
  | 'litellm'
  | 'openrouter'
  | 'deepseek'
  | 'groq'
  | 'mistral'
  | 'gemini'
  | 'xai'
  | 'together'
  | 'fireworks'
  | 'generic';

/** Where the key goes: `Authorization: Bearer KEY`, or an `api-key: KEY` header (Azure). */
type AuthScheme = 'bearer' | 'api-key';

/** How reasoning effort is sent: `reasoning_effort: "low"`, `reasoning: {effort: "low"}`, or not at all. */
export type ReasoningSpelling = 'reasoning_effort' | 'reasoning.effort' | null;

/** A value for the model ids matching `model`; in a list, the first match wins. */
export interface ModelRule<T> {
  model: RegExp;
  value: T;
}

/** Credentials without a key: AWS SigV4 signatures, or Microsoft Entra ID bearer tokens. */
export type KeylessAuth = 'aws-sigv4' | 'azure-entra-id';

/** Overrides for base URLs whose path matches `path` (e.g. Azure classic deployments). */
interface ProfileVariant {
  name: string;
  /** Tested against the base URL's path, without trailing slash or `/chat/completions`. */
  path: RegExp;
  /** When present, the base URL's host name must match too (e.g. Bedrock's mantle endpoint). */
  host?: RegExp;
  auth?: AuthScheme;
  defaultQuery?: Readonly<Record<string, string>>;
  /** Replaces the profile's `modelsPath` when present (`null`: no model list). */
  modelsPath?: string | null;
}

/**
 * A server's own API for the context window it runs a model with (read by `server-context.ts`):
 * - `ollama-ps`: Ollama `GET /api/ps` `context_length` of the loaded model (the model is loaded
 *   first when it is not), with `POST /api/show` for the trained window and a Modelfile's `num_ctx`;
 * - `lmstudio-models`: LM Studio `GET /api/v0/models` `loaded_context_length` (`max_context_length`: trained);
 * - `llamacpp-props`: llama.cpp `GET /props` `default_generation_settings.n_ctx` (the window of one slot).
 */
export type ContextWindowQuery = 'ollama-ps' | 'lmstudio-models' | 'llamacpp-props';

/** How a self-hosted server says whether a model is loaded yet (`endpoints/model-loading.ts`). */
export type LoadingQuery = 'ollama-ps' | 'lmstudio-models' | 'llamacpp-health';

/**
 * A server's own chat API, spoken instead of Chat Completions (see `openai/ollama-chat-request.ts`).
 * - `api: 'ollama'`: `POST /api/chat` at the base URL's root, NDJSON stream, `options.num_ctx`
 *   (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion).
 * - `thinkLevels`: models whose `think` takes a level (`"low"|"medium"|"high"`) rather than a
 *   boolean; GPT-OSS cannot turn thinking off (docs/capabilities/thinking.mdx).
 */
export interface NativeChatProfile {
  api: 'ollama';
  thinkLevels: readonly RegExp[];
  /** How to get a larger window when the agent asks for it itself (replaces `contextWindowFix` while this API is used). */
  windowFix: string;
}

/** What differs for one provider family. Data only: the client reads it, it holds no code. */
export interface ProviderProfile {
  id: ProviderId;
  /** Human name, e.g. `Azure OpenAI`. */
  label: string;
  auth: AuthScheme;
  /** Query parameters added when the user's query lacks their key. */
  defaultQuery?: Readonly<Record<string, string>>;
  /** Path after the base URL that lists models (`/models`), or `null` when there is none. */
  modelsPath: string | null;
  /** The `/models` answer's shape, for people (models.ts reads them all). */
  modelsShape: string;
  /** Model ids that take `max_completion_tokens` instead of `max_tokens`. */
  maxCompletionTokensModels: readonly RegExp[];
  reasoningEffort: {
    spelling: ReasoningSpelling;
    /** Levels (besides `default`) per model, first match wins. */
    levels?: readonly ModelRule<readonly string[]>[];
    /** Levels for models no rule matches. */
    defaultLevels: readonly string[];
  };
  variants?: readonly ProfileVariant[];
  /** How `detectProvider` (providers.ts) recognizes the base URL. */
  detect: { hosts?: readonly RegExp[]; paths?: readonly RegExp[]; port?: number };
  /** Base URL to suggest (setup wizard, local discovery). */
  defaultBaseUrl?: string;
  /** The environment variable people usually keep this provider's key in. */
  apiKeyEnv?: string;
  /** An example base URL `openai-acp setup` shows when asking for one (Azure's names the resource). */
  baseUrlExample?: string;
  /**
   * The configured default model (`gpt-4o`) suits this provider, so an endpoint without a named
   * model sends it. Absent: the endpoint serves its own ids, and its default model is the first
   * chat model it lists (`endpoints/default-model.ts`).
   */
  fixedDefaultModel?: boolean;
  /**
   * The credentials an endpoint without a key uses (`endpoints/cloud-auth.ts`): AWS SigV4
   * (Bedrock) or a Microsoft Entra ID token (Azure). Absent: requests go without credentials.
   */
  keylessAuth?: KeylessAuth;
  /** The `apiType` of the ACP `providers/*` methods that means this provider; absent: `openai`. */
  acpApiType?: 'azure' | 'bedrock';
  /**
   * How to ask the server for the context window it runs a model with
   * (`endpoints/server-context.ts`). Absent: the server is not asked (the `/models` list may still say).
   */
  contextWindowQuery?: ContextWindowQuery;
  /**
   * How to ask the server whether a model is loaded yet (`endpoints/model-loading.ts`): a user
   * waiting on the first answer is told when it is loading, and `doctor` says. Absent: not asked.
   */
  loadingQuery?: LoadingQuery;
  /**
   * How the user gives this server a larger context window, as a sentence part after "Fix: "
   * (told when the window is small or a request overflows it); absent: the generic advice.
   */
  contextWindowFix?: string;
  /**
   * Send each step's `reasoning_content` back (`""` when none) on assistant tool-call messages:
   * DeepSeek thinking models require it, others (Mistral) reject the field (`context/tool-messages.ts`).
   */
  echoReasoning?: boolean;
  /** Tool-call ids must be 9 characters `[a-zA-Z0-9]` (Mistral; `context/tool-call-ids.ts`). */
  shortToolCallIds?: boolean;
  /** Tool parameter schemas must fit Gemini's OpenAPI subset: keywords it rejects are removed (`tools/mcp/mcp-schema.ts`). */
  geminiToolSchemas?: boolean;
  /** The server's own chat API, used instead of Chat Completions when the settings allow it. */
  nativeChat?: NativeChatProfile;
  /** Known quirks, in words. */
  notes: readonly string[];
  /** Where the facts above come from. */
  docs: string;
}

const LOW_MEDIUM_HIGH = ['low', 'medium', 'high'] as const;
/** OpenAI o-series (o1, o3-mini, o4-mini…) and the gpt-5 family, optionally behind a `vendor/` prefix. */
const O_SERIES_OR_GPT5 = /(^|\/)(o\d+(-[\w.-]*)?|gpt-5[\w.-]*)$/i;
/** OpenAI reasoning levels by model (https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort). */
const OPENAI_LEVELS: readonly ModelRule<readonly string[]>[] = [
  { model: /(^|\/)gpt-5(\.\d+)?-pro\b/i, value: ['high'] },
  { model: /(^|\/)gpt-5\.1\b/i, value: ['none', 'low', 'medium', 'high'] },
  { model: /(^|\/)gpt-5\.([2-9]|\d\d)\b/i, value: ['none', 'low', 'medium', 'high', 'xhigh'] },
  { model: /(^|\/)gpt-5\b/i, value: ['minimal', 'low', 'medium', 'high'] },
  { model: /(^|\/)o\d/i, value: LOW_MEDIUM_HIGH },
  // Non-reasoning models answer 400 to any reasoning_effort.
  { model: /(^|\/)(gpt-4|gpt-3\.5|chatgpt-)/i, value: [] },
];
/** GPT-OSS, under any tag or namespace (`gpt-oss:20b`, `library/gpt-oss:120b`). */
const GPT_OSS = /(^|\/)gpt-oss\b/i;
const OPENAI_NOTES = [
  'o1-mini and o1-preview reject the system role (sent as developer, else merged into the first user message).',
  'o-series and gpt-5 reject temperature and top_p other than the default.',
];

/** The profile of every provider family. */
export const PROVIDER_PROFILES: Readonly<Record<ProviderId, ProviderProfile>> = {
  openai: {
    id: 'openai',
    label: 'OpenAI',
    fixedDefaultModel: true,
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [O_SERIES_OR_GPT5],
    reasoningEffort: { spelling: 'reasoning_effort', levels: OPENAI_LEVELS, defaultLevels: LOW_MEDIUM_HIGH },
    detect: { hosts: [/^api\.openai\.com$/] },
    defaultBaseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: 'OPENAI_API_KEY',
    notes: OPENAI_NOTES,
    docs: 'https://platform.openai.com/docs/api-reference/chat/create',
  },
  azure: {
    id: 'azure',
    label: 'Azure OpenAI',
    baseUrlExample: 'https://RESOURCE.openai.azure.com/openai/v1',
    fixedDefaultModel: true,
    keylessAuth: 'azure-entra-id',
    acpApiType: 'azure',
    auth: 'api-key',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]} (v1 API only)',
    maxCompletionTokensModels: [O_SERIES_OR_GPT5],
    reasoningEffort: { spelling: 'reasoning_effort', levels: OPENAI_LEVELS, defaultLevels: LOW_MEDIUM_HIGH },
    variants: [
      // Latest GA data-plane inference version: https://learn.microsoft.com/azure/ai-services/openai/reference
      { name: 'azure-classic', path: /\/openai\/deployments\/[^/]+$/i, defaultQuery: { 'api-version': '2024-10-21' }, modelsPath: null },
      { name: 'azure-v1', path: /\/openai\/v1$/i },
    ],
    detect: { hosts: [/\.openai\.azure\.com$/, /\.cognitiveservices\.azure\.com$/, /\.services\.ai\.azure\.com$/], paths: [/\/openai\/deployments\/[^/]+/i] },
    apiKeyEnv: 'AZURE_OPENAI_API_KEY',
    notes: [
      'Classic: base URL …/openai/deployments/DEPLOYMENT, api-version in the query, model = deployment name, no /models.',
      'v1: base URL …/openai/v1, no api-version; api-key header, or Bearer for a Microsoft Entra ID token.',
      'api-versions before 2024-09-01-preview reject stream_options and max_completion_tokens.',
      ...OPENAI_NOTES,
    ],
    docs: 'https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle',
  },
  bedrock: {
    id: 'bedrock',
    label: 'AWS Bedrock',
    keylessAuth: 'aws-sigv4',
    acpApiType: 'bedrock',
    auth: 'bearer',
    modelsPath: null,
    modelsShape: 'none: Bedrock serves only chat completions on this endpoint',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    variants: [
      // The mantle endpoint lists models at /models: https://docs.aws.amazon.com/bedrock/latest/userguide/inference-chat-completions-mantle.html
      { name: 'bedrock-mantle', path: /^/, host: /^bedrock-mantle(-fips)?\.[a-z0-9-]+\.api\.aws$/, modelsPath: '/models' },
    ],
    detect: {
      hosts: [
        /^bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com$/,
        /^bedrock-runtime-fips\.[a-z0-9-]+\.amazonaws\.com$/,
        /^bedrock-mantle(-fips)?\.[a-z0-9-]+\.api\.aws$/,
      ],
    },
    defaultBaseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1',
    apiKeyEnv: 'AWS_BEARER_TOKEN_BEDROCK',
    notes: [
      'The key is a Bedrock API key (sent as Bearer); without a key, requests are signed with SigV4 from the AWS credential chain.',
      'Models are OpenAI models on Bedrock, e.g. openai.gpt-oss-120b-1:0.',
    ],
    docs: 'https://docs.aws.amazon.com/bedrock/latest/userguide/inference-chat-completions.html',
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama',
    contextWindowQuery: 'ollama-ps',
    loadingQuery: 'ollama-ps',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    // `none` turns thinking off (think: false; on /v1 Ollama maps reasoning_effort "none" the same way); GPT-OSS cannot.
    reasoningEffort: { spelling: 'reasoning_effort', levels: [{ model: GPT_OSS, value: LOW_MEDIUM_HIGH }], defaultLevels: ['none', ...LOW_MEDIUM_HIGH] },
    detect: { port: 11434 },
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    contextWindowFix:
      'restart Ollama with a larger window (`OLLAMA_CONTEXT_LENGTH=32768 ollama serve`), ' +
      'or set `PARAMETER num_ctx 32768` in a Modelfile and `ollama create` a model from it; ' +
      "through Ollama's native API (OPENAI_ACP_OLLAMA_NUM_CTX not 0) the agent asks for the window itself: " +
      "raise OPENAI_ACP_OLLAMA_NUM_CTX (up to the model's trained window)",
    nativeChat: {
      api: 'ollama',
      thinkLevels: [GPT_OSS],
      windowFix:
        "raise OPENAI_ACP_OLLAMA_NUM_CTX (the window the agent asks Ollama for, e.g. 32768; at most the model's " +
        'trained window, and memory permitting), or pick a model trained for a larger window',
    },
    notes: [
      'No key needed.',
      'Older versions send no usage in streams.',
      'Chat goes to the native /api/chat with options.num_ctx (OPENAI_ACP_OLLAMA_NUM_CTX); /v1 ignores num_ctx.',
    ],
    docs: 'https://github.com/ollama/ollama/blob/main/docs/openai.md',
  },
  vllm: {
    id: 'vllm',
    label: 'vLLM',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id, max_model_len}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { port: 8000 },
    defaultBaseUrl: 'http://127.0.0.1:8000/v1',
    contextWindowFix: 'restart vLLM with a larger `--max-model-len` (e.g. `vllm serve MODEL --max-model-len 32768`), memory permitting',
    notes: ['Rejects unknown body fields with 400 extra_forbidden (pydantic).'],
    docs: 'https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html',
  },
  lmstudio: {
    id: 'lmstudio',
    label: 'LM Studio',
    contextWindowQuery: 'lmstudio-models',
    loadingQuery: 'lmstudio-models',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { port: 1234 },
    defaultBaseUrl: 'http://127.0.0.1:1234/v1',
    contextWindowFix: "load the model with a larger context length (LM Studio's model load settings, or `lms load MODEL --context-length 32768`)",
    notes: ['No key needed.'],
    docs: 'https://lmstudio.ai/docs/app/api/endpoints/openai',
  },
  llamacpp: {
    id: 'llamacpp',
    label: 'llama.cpp server',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id, meta: {n_ctx_train}}]} plus {models: […]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { port: 8080 },
    defaultBaseUrl: 'http://127.0.0.1:8080/v1',
    contextWindowQuery: 'llamacpp-props',
    loadingQuery: 'llamacpp-health',
    contextWindowFix: 'restart llama-server with a larger context (`-c 32768`; with `--parallel N` each slot gets 1/N of it)',
    notes: ['Some versions answer an unsupported parameter with HTTP 500 "Unsupported param: NAME".'],
    docs: 'https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md',
  },
  litellm: {
    id: 'litellm',
    label: 'LiteLLM proxy',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { port: 4000 },
    defaultBaseUrl: 'http://127.0.0.1:4000/v1',
    apiKeyEnv: 'LITELLM_API_KEY',
    notes: ['Without drop_params it answers 400 UnsupportedParamsError naming the parameters.'],
    docs: 'https://docs.litellm.ai/docs/proxy/user_keys',
  },
  openrouter: {
    id: 'openrouter',
    label: 'OpenRouter',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id, name, context_length}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning.effort', defaultLevels: ['minimal', 'low', 'medium', 'high', 'xhigh'] },
    detect: { hosts: [/^(www\.)?openrouter\.ai$/] },
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    notes: ['Optional attribution headers HTTP-Referer and X-Title.', 'Streams carry ": OPENROUTER PROCESSING" comments.'],
    docs: 'https://openrouter.ai/docs/use-cases/reasoning-tokens',
  },
  deepseek: {
    id: 'deepseek',
    label: 'DeepSeek',
    echoReasoning: true,
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: null, defaultLevels: [] },
    detect: { hosts: [/^api\.deepseek\.com$/] },
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    notes: ['deepseek-reasoner always reasons (reasoning_content); there is no effort parameter.'],
    docs: 'https://api-docs.deepseek.com/api/create-chat-completion',
  },
  groq: {
    id: 'groq',
    label: 'Groq',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id, context_window}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: {
      spelling: 'reasoning_effort',
      // gpt-oss: low/medium/high; qwen3: none/default (https://console.groq.com/docs/reasoning)
      levels: [
        { model: /gpt-oss/i, value: LOW_MEDIUM_HIGH },
        { model: /qwen/i, value: ['none'] },
      ],
      defaultLevels: [],
    },
    detect: { hosts: [/^api\.groq\.com$/] },
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    apiKeyEnv: 'GROQ_API_KEY',
    notes: ['Usage may come in x_groq.usage.', 'Rejects unknown properties with 400 "property \'x\' is unsupported".'],
    docs: 'https://console.groq.com/docs/api-reference#chat-create',
  },
  mistral: {
    id: 'mistral',
    label: 'Mistral',
    shortToolCallIds: true,
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id, max_context_length}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: null, defaultLevels: [] },
    detect: { hosts: [/^api\.mistral\.ai$/, /^codestral\.mistral\.ai$/] },
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    apiKeyEnv: 'MISTRAL_API_KEY',
    notes: [
      'Answers unknown body fields with 422 extra_forbidden (max_completion_tokens, frequency_penalty…).',
      'Magistral thinking arrives as content parts.',
    ],
    docs: 'https://docs.mistral.ai/api/#tag/chat',
  },
  gemini: {
    id: 'gemini',
    label: 'Google Gemini (OpenAI compatibility)',
    geminiToolSchemas: true,
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id: "models/…"}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: {
      spelling: 'reasoning_effort',
      // https://ai.google.dev/gemini-api/docs/openai (low/medium/high map to thinking budgets, none disables on 2.5 Flash);
      // Gemini 3 thinking levels: Pro low/high, Flash minimal/low/medium/high.
      levels: [
        { model: /gemini-3[\w.-]*pro/i, value: ['low', 'high'] },
        { model: /gemini-3/i, value: ['minimal', 'low', 'medium', 'high'] },
        { model: /gemini-2\.5-flash/i, value: ['none', 'low', 'medium', 'high'] },
      ],
      defaultLevels: LOW_MEDIUM_HIGH,
    },
    detect: { hosts: [/^generativelanguage\.googleapis\.com$/] },
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    apiKeyEnv: 'GEMINI_API_KEY',
    notes: ['Unknown fields are rejected with 400 "Invalid JSON payload received. Unknown name …", in a JSON array.'],
    docs: 'https://ai.google.dev/gemini-api/docs/openai',
  },
  xai: {
    id: 'xai',
    label: 'xAI',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: {
      spelling: 'reasoning_effort',
      // "Only grok-3-mini supports reasoning_effort" (low, high); grok-4 answers 400 to it.
      // https://docs.x.ai/docs/guides/reasoning
      levels: [
        { model: /grok-3-mini/i, value: ['low', 'high'] },
        { model: /grok-(4|code)/i, value: [] },
      ],
      defaultLevels: ['low', 'high'],
    },
    detect: { hosts: [/^api\.x\.ai$/] },
    defaultBaseUrl: 'https://api.x.ai/v1',
    apiKeyEnv: 'XAI_API_KEY',
    notes: ['Errors name parameters in camelCase ("does not support parameter reasoningEffort").', 'Reasoning tokens are not counted in completion_tokens.'],
    docs: 'https://docs.x.ai/docs/api-reference#chat-completions',
  },
  together: {
    id: 'together',
    label: 'Together AI',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'bare array [{id, context_length}]',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { hosts: [/^api\.together\.(xyz|ai)$/] },
    defaultBaseUrl: 'https://api.together.xyz/v1',
    apiKeyEnv: 'TOGETHER_API_KEY',
    notes: ['Reasoning models stream reasoning inline as <think>…</think> or as reasoning.'],
    docs: 'https://docs.together.ai/reference/chat-completions-1',
  },
  fireworks: {
    id: 'fireworks',
    label: 'Fireworks AI',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'openai {data: [{id}]}',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: { hosts: [/^api\.fireworks\.ai$/] },
    defaultBaseUrl: 'https://api.fireworks.ai/inference/v1',
    apiKeyEnv: 'FIREWORKS_API_KEY',
    notes: ['Model ids look like accounts/fireworks/models/NAME.'],
    docs: 'https://docs.fireworks.ai/api-reference/post-chatcompletions',
  },
  generic: {
    id: 'generic',
    label: 'OpenAI-compatible',
    auth: 'bearer',
    modelsPath: '/models',
    modelsShape: 'any shape models.ts reads',
    maxCompletionTokensModels: [],
    reasoningEffort: { spelling: 'reasoning_effort', defaultLevels: LOW_MEDIUM_HIGH },
    detect: {},
    notes: ['Unsupported parameters are learned from 400 answers (adaptive-params.ts).'],
    docs: 'https://platform.openai.com/docs/api-reference/chat/create',
  },
};
