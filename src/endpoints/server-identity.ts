/**
 * Which local server software answers at a base URL, known by its answers rather than its port
 * (the port is only a hint, `detectProvider`), asked once per base URL per process:
 * - llama.cpp `llama-server`: `GET /props` with `default_generation_settings`
 *   (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md#get-props-get-server-global-properties);
 *   its `/v1/models` (`owned_by: "llamacpp"`, `meta.n_ctx`) is read by the model catalog, not here;
 * - Ollama: `GET /` answering "Ollama is running", or `GET /api/version` `{version}`
 *   (https://github.com/ollama/ollama/blob/main/docs/api.md#version);
 * - LM Studio: `GET /api/v0/models` entries with `max_context_length` or `state`
 *   (https://lmstudio.ai/docs/app/api/endpoints/rest);
 * - vLLM: `GET /version` `{version}` (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html;
 *   its `max_model_len` in `/v1/models` is read by the model catalog);
 * - LiteLLM proxy: `GET /health/liveliness` answering "I'm alive!"
 *   (https://docs.litellm.ai/docs/proxy/health).
 * Each look is one GET bounded by {@link IDENTITY_TIMEOUT_MS}; an HTML page, an empty body, an
 * error status or nonsense says nothing, and a server that says nothing keeps its port's guess.
 * The `/props` answer is kept: it also tells the runtime window and whether the chat template
 * takes tools (`chat_template_caps.supports_tools`), which `doctor` shows.
 */
import { defaultFetch, type FetchLike } from '../openai/http.js';
import { readBodyUpTo } from '../openai/body-limits.js';
import type { LocalProvider } from './local-discovery.js';
import { isRecord, parseJsonOrUndefined, positiveInt } from '../shared/json-value.js';

/** Bound of each look, in ms. */
const IDENTITY_TIMEOUT_MS = 2000;
/** Longest answer read from a look, in bytes (a `/props` answer is a few KB with its template). */
const MAX_ANSWER_BYTES = 256 * 1024;

/** What a llama.cpp `/props` answer says, when it says it. */
export interface LlamaCppProps {
  /** `default_generation_settings.n_ctx`: the window of one slot, in tokens. */
  nCtx?: number;
  /** `total_slots`: requests served at once. */
  slots?: number;
  /** `chat_template_caps.supports_tools`: whether the chat template renders a request's tools. */
  supportsTools?: boolean;
  /** `build_info`, e.g. `b11669-Debian`. */
  build?: string;
}

/** What the answers said about the server at a base URL. */
export interface ServerIdentity {
  /** The server software, when an answer showed it. */
  provider?: LocalProvider;
  /** The answer that showed it, e.g. `GET /props`. */
  evidence?: string;
  /** The `/props` answer, on llama.cpp. */
  props?: LlamaCppProps;
}

/**
 * The facts of a llama.cpp `/props` answer; `undefined` when the body is not one (no `default_generation_settings` object).
 * @internal a pure reader checked on recorded server answers.
 */
export function parseLlamaCppPropsFacts(body: unknown): LlamaCppProps | undefined {
  if (!isRecord(body) || !isRecord(body['default_generation_settings'])) return undefined;
  const props: LlamaCppProps = {};
  const nCtx = positiveInt(body['default_generation_settings']['n_ctx']);
  if (nCtx) props.nCtx = nCtx;
  const slots = positiveInt(body['total_slots']);
  if (slots) props.slots = slots;
  const caps = body['chat_template_caps'];
  if (isRecord(caps) && typeof caps['supports_tools'] === 'boolean') props.supportsTools = caps['supports_tools'];
  if (typeof body['build_info'] === 'string') props.build = body['build_info'];
  return props;
}

/** The entries of a `/models`-shaped answer (`{data: [...]}`), else `[]`. */
const entriesOf = (body: unknown): Record<string, unknown>[] => (isRecord(body) && Array.isArray(body['data']) ? body['data'].filter(isRecord) : []);

/** The answers of one server, as read (`undefined`: no usable answer); pure decision over them. */
interface IdentityAnswers {
  props?: unknown;
  vllmVersion?: unknown;
  root?: string | undefined;
  ollamaVersion?: unknown;
  lmStudioModels?: unknown;
  liteLlmAlive?: string | undefined;
}

/**
 * The server the answers show, first match in this order: llama.cpp, Ollama, LM Studio, LiteLLM, vLLM. Pure.
 * @internal the pure decision, checked on recorded answers of every server kind.
 */
export function identifyFromAnswers(answers: IdentityAnswers): ServerIdentity {
  const props = parseLlamaCppPropsFacts(answers.props);
  if (props) return { provider: 'llamacpp', evidence: 'GET /props', props };
  if (answers.root !== undefined && /^\s*Ollama is running\s*$/.test(answers.root)) return { provider: 'ollama', evidence: 'GET / ("Ollama is running")' };
  if (isRecord(answers.ollamaVersion) && typeof answers.ollamaVersion['version'] === 'string' && Object.keys(answers.ollamaVersion).length === 1) {
    return { provider: 'ollama', evidence: 'GET /api/version' };
  }
  if (entriesOf(answers.lmStudioModels).some((entry) => positiveInt(entry['max_context_length']) !== undefined || typeof entry['state'] === 'string')) {
    return { provider: 'lmstudio', evidence: 'GET /api/v0/models' };
  }
  if (answers.liteLlmAlive !== undefined && /I'?m alive/i.test(answers.liteLlmAlive)) return { provider: 'litellm', evidence: 'GET /health/liveliness' };
  if (isRecord(answers.vllmVersion) && typeof answers.vllmVersion['version'] === 'string' && Object.keys(answers.vllmVersion).length === 1)
    return { provider: 'vllm', evidence: 'GET /version' };
  return {};
}

/** What a look needs. */
export interface IdentifyOptions {
  /** Request headers (the endpoint's auth), sent with each look. @defaultValue none */
  headers?: Record<string, string> | undefined;
  /** @defaultValue {@link IDENTITY_TIMEOUT_MS} */
  timeoutMs?: number | undefined;
  /** @defaultValue `defaultFetch` of http.ts */
  fetch?: FetchLike | undefined;
}

/** One GET, never rejecting: the text of a 2xx answer that is not HTML, else `undefined`. */
async function getText(url: string, options: IdentifyOptions): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? IDENTITY_TIMEOUT_MS);
  try {
    const fetch = options.fetch ?? (await defaultFetch());
    const response = await fetch(url, { method: 'GET', headers: { ...options.headers, accept: 'application/json, text/plain' }, signal: controller.signal });
    // A web page or a stream (a server that answers every path with its chat stream) says nothing.
    if (!response.ok || /html|event-stream/i.test(response.headers.get('content-type') ?? '')) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    // Read no further than the largest answer worth reading: the rest is never buffered.
    const { text, cut } = await readBodyUpTo(response, MAX_ANSWER_BYTES);
    return cut ? undefined : text;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

const json = (text: string | undefined): unknown => (text === undefined ? undefined : parseJsonOrUndefined(text));

/**
 * Asks the server at `baseUrl` (e.g. `http://127.0.0.1:9000/v1`) who it is: the six GETs of the
 * module comment at once, each bounded, then {@link identifyFromAnswers}. Never rejects; `{}`
 * when nothing answered as one of the known servers.
 * @internal the look without the per-process memo, so each test asks afresh.
 */
export async function askServerIdentity(baseUrl: string, options: IdentifyOptions = {}): Promise<ServerIdentity> {
  const base = baseUrl.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  const [props, vllm, rootText, version, lmStudio, alive] = await Promise.all([
    getText(`${root}/props`, options),
    getText(`${root}/version`, options),
    getText(`${root}/`, options),
    getText(`${root}/api/version`, options),
    getText(`${root}/api/v0/models`, options),
    getText(`${root}/health/liveliness`, options),
  ]);
  return identifyFromAnswers({
    props: json(props),
    vllmVersion: json(vllm),
    root: rootText,
    ollamaVersion: json(version),
    lmStudioModels: json(lmStudio),
    liteLlmAlive: alive,
  });
}

/**
 * The facts of the llama.cpp `/props` answer at `baseUrl` (`doctor`'s llama.cpp rows); one GET,
 * bounded. Never rejects; `undefined` when the server does not answer as llama.cpp does.
 */
export async function readLlamaCppProps(baseUrl: string, options: IdentifyOptions = {}): Promise<LlamaCppProps | undefined> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return parseLlamaCppPropsFacts(json(await getText(`${root}/props`, options)));
}

/**
 * The looks made in this process, by base URL: one per endpoint, shared by every caller. Per
 * process rather than per agent: the endpoints are chosen (`runtime-config.ts` `chooseEndpoints`)
 * before any agent state exists, by the CLI and the terminal commands alike.
 */
const asked = new Map<string, Promise<ServerIdentity>>();

/**
 * {@link askServerIdentity}, once per base URL for the life of the process (concurrent callers
 * share the look). Never rejects.
 */
export function identifyServer(baseUrl: string, options: IdentifyOptions = {}): Promise<ServerIdentity> {
  const key = baseUrl.replace(/\/+$/, '');
  let found = asked.get(key);
  if (!found) {
    found = askServerIdentity(key, options);
    asked.set(key, found);
  }
  return found;
}

/**
 * Forgets every look: a test suite that runs its files in one process calls it after each test
 * (vitest.config.ts `setupFiles`), since a loopback port a finished test's server used may be
 * handed to another server later.
 * @internal only the test suite forgets (test/global/process-state.ts).
 */
export function forgetServerIdentities(): void {
  asked.clear();
}
