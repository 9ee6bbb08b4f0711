/**
 * Zero-configuration local use: when neither `OPENAI_BASE_URL` nor `OPENAI_API_KEY` is set, look
 * for an OpenAI-compatible server on this machine at the ports the popular ones listen on by
 * default, and use the first one (in {@link LOCAL_CANDIDATES} order) that lists a model.
 *
 * Default ports (each project's documentation):
 * - Ollama 11434 — https://github.com/ollama/ollama/blob/main/docs/faq.md (`OLLAMA_HOST`), `/v1` per
 *   https://github.com/ollama/ollama/blob/main/docs/openai.md
 * - LM Studio 1234 — https://lmstudio.ai/docs/app/api/endpoints/openai
 * - vLLM 8000 — https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
 * - llama.cpp `llama-server` 8080 — https://github.com/ggml-org/llama.cpp/tree/master/tools/server
 * - LiteLLM proxy 4000 — https://docs.litellm.ai/docs/proxy/quick_start
 *
 * Probes send no credentials and go straight to the loopback address: `defaultFetch` of
 * `http.ts` never sends loopback requests through a proxy.
 */
import { MAX_JSON_ANSWER_BYTES, readBodyUpTo } from '../openai/body-limits.js';
import { defaultFetch, type FetchLike } from '../openai/http.js';
import type { Logger } from '../shared/log.js';
import { modelsUrl, parseModels, type ModelInfo } from './model-catalog.js';

/** The kinds of local server looked for. */
export type LocalProvider = 'ollama' | 'lmstudio' | 'vllm' | 'llamacpp' | 'litellm';

/** One place to look: a loopback port and the server that usually listens there. */
export interface LocalCandidate {
  port: number;
  provider: LocalProvider;
}

/** A local server that answered `GET /v1/models` with at least one model. */
interface LocalServer {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** The server the port belongs to by default (not verified: any OpenAI-compatible server counts). */
  provider: LocalProvider;
  /** The models it lists, in its order; never empty. */
  models: ModelInfo[];
  /** The model to use when `OPENAI_MODEL` is unset: see {@link pickLocalModel}. */
  defaultModel: string;
}

/**
 * What one probe found:
 * `models` (listed at least one), `no-models` (2xx, but no model in the body: empty list or not
 * a model list), `http-error` (non-2xx; see `status`), `unreachable` (connection refused or
 * reset), `timeout` (no full answer within the bound), `skipped` (still pending when a preferred
 * server had already won; aborted).
 */
type LocalProbeOutcome = 'models' | 'no-models' | 'http-error' | 'unreachable' | 'timeout' | 'skipped';

/** The result of probing one candidate. */
export interface LocalProbe extends LocalCandidate {
  /** e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  outcome: LocalProbeOutcome;
  /** HTTP status when the server answered. */
  status?: number;
  /** The models listed; `[]` unless `outcome` is `models`. */
  models: ModelInfo[];
}

/** What {@link probeLocalServers} found. */
export interface LocalDiscovery {
  /** The preferred candidate that lists models; `undefined` when none does. */
  server: LocalServer | undefined;
  /** One entry per candidate, in candidate order. */
  probes: LocalProbe[];
  /** How long the search took, in ms (at most about `timeoutMs`). */
  waitedMs: number;
  /** The bound the search had, in ms. */
  timeoutMs: number;
}

/** Options of {@link discoverLocalServer} and {@link probeLocalServers}. */
export interface DiscoverOptions {
  /** Where to look, most preferred first. @defaultValue {@link LOCAL_CANDIDATES} */
  candidates?: ReadonlyArray<LocalCandidate> | undefined;
  /** The host probed. @defaultValue {@link LOCAL_HOST} */
  host?: string | undefined;
  /**
   * Bound on the whole discovery, in ms: every probe still running is aborted then. A search
   * that finds its answer (or every port refused) resolves sooner. @defaultValue {@link LOCAL_PROBE_TIMEOUT_MS}
   */
  timeoutMs?: number | undefined;
  /** Injectable transport (tests). @defaultValue `defaultFetch` of http.ts (loopback goes direct, never through a proxy) */
  fetch?: FetchLike | undefined;
  /** Receives one `debug` record with every probe's outcome. */
  logger?: Logger | undefined;
}

/** The candidates in order of preference. */
export const LOCAL_CANDIDATES: ReadonlyArray<LocalCandidate> = Object.freeze([
  Object.freeze({ port: 11434, provider: 'ollama' as const }),
  Object.freeze({ port: 1234, provider: 'lmstudio' as const }),
  Object.freeze({ port: 8000, provider: 'vllm' as const }),
  Object.freeze({ port: 8080, provider: 'llamacpp' as const }),
  Object.freeze({ port: 4000, provider: 'litellm' as const }),
]);

/** The default host probed: IPv4 loopback, where all five servers listen by default. */
export const LOCAL_HOST = '127.0.0.1';
/**
 * The default bound on discovery, in ms: the agent's search at start (it runs after the
 * `initialize` answer; `session/new` waits for it). An idle local server answers `/v1/models` in a
 * few ms, but on a loaded 2-core machine the agent's own start and the first request take
 * hundreds, and a server loading a model longer. A port nothing listens on is refused at once, so the bound
 * is only waited out when something accepts the connection and does not answer. `doctor` and
 * `models` search with their own `--timeout-ms` (default 5 s).
 * @internal the tests check the search's default bound against it rather than a copy of its number.
 */
export const LOCAL_PROBE_TIMEOUT_MS = 2_000;

/**
 * How long `doctor` and `models` search when nothing is configured, in ms, unless `--timeout-ms`
 * says otherwise: longer than the agent's start-up search, since a person waits for the answer
 * and a busy machine or a loading server may take seconds.
 */
export const COMMAND_DISCOVERY_TIMEOUT_MS = 5_000;

/** Ids that name embedding or reranking models, which cannot chat (LM Studio lists one by default). */
const NOT_CHAT = /embed|rerank|\bbge[-_]|minilm/i;

/** The model to chat with by default: the first listed that does not look like an embedding or reranking model, else the first. */
export function pickLocalModel(models: readonly ModelInfo[]): string | undefined {
  return (models.find((model) => !NOT_CHAT.test(model.id)) ?? models[0])?.id;
}

/** Brackets an IPv6 literal for use in a URL. */
export const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** `GET {baseUrl}/models` once. Never rejects; `signal` aborting makes it resolve `timeout`. */
async function probe(fetch: FetchLike, baseUrl: string, signal: AbortSignal): Promise<Omit<LocalProbe, keyof LocalCandidate | 'baseUrl'>> {
  try {
    const response = await fetch(modelsUrl(baseUrl), { method: 'GET', headers: { accept: 'application/json' }, signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { outcome: 'http-error', status: response.status, models: [] };
    }
    // A list larger than any real one is not read to its end (and not a list).
    const { text, cut } = await readBodyUpTo(response, MAX_JSON_ANSWER_BYTES);
    if (signal.aborted) throw signal.reason;
    let body: unknown;
    try {
      body = cut ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const models = parseModels(body);
    return { outcome: models.length > 0 ? 'models' : 'no-models', status: response.status, models };
  } catch {
    return { outcome: signal.aborted ? 'timeout' : 'unreachable', models: [] };
  }
}

/**
 * Probes every candidate at once (`GET http://{host}:{port}/v1/models`) and picks the most
 * preferred one that lists at least one model. Resolves as soon as that choice is certain (every
 * more preferred probe has failed), and at the latest after `timeoutMs`, when every probe still
 * running is aborted: a slow preferred server loses to a fast less-preferred one only then.
 * Never rejects.
 */
export function probeLocalServers(options: DiscoverOptions = {}): Promise<LocalDiscovery> {
  const host = options.host ?? LOCAL_HOST;
  const timeoutMs = options.timeoutMs ?? LOCAL_PROBE_TIMEOUT_MS;
  const fetch: FetchLike = options.fetch ?? ((url, init) => defaultFetch().then((transport) => transport(url, init)));
  const controller = new AbortController();
  const probes: (LocalProbe | undefined)[] = [];
  const candidates = [...(options.candidates ?? LOCAL_CANDIDATES)];
  const baseUrls = candidates.map(({ port }) => `http://${urlHost(host)}:${port}/v1`);
  const started = performance.now();

  return new Promise((resolve) => {
    let settled = false;
    let expired = false;
    const decide = (): void => {
      if (settled) return;
      let winner: number | undefined;
      for (let i = 0; i < candidates.length; i++) {
        const found = probes[i];
        if (!found && !expired) return; // a more preferred answer may still come
        if (found?.outcome === 'models') {
          winner = i;
          break;
        }
      }
      settled = true;
      clearTimeout(timer);
      controller.abort();
      const all = candidates.map(
        (candidate, i): LocalProbe =>
          probes[i] ?? { ...candidate, baseUrl: baseUrls[i]!, outcome: winner !== undefined && i > winner ? 'skipped' : 'timeout', models: [] },
      );
      const chosen = winner === undefined ? undefined : all[winner]!;
      const server = chosen && { baseUrl: chosen.baseUrl, provider: chosen.provider, models: chosen.models, defaultModel: pickLocalModel(chosen.models)! };
      const waitedMs = Math.round(performance.now() - started);
      options.logger?.debug('local server discovery', {
        found: server?.baseUrl ?? null,
        probes: all.map((p) => `${p.provider}:${p.port}=${p.outcome}${p.status ? ` ${p.status}` : ''}`),
        waitedMs,
        timeoutMs,
      });
      resolve({ server, probes: all, waitedMs, timeoutMs });
    };
    const timer = setTimeout(
      () => {
        expired = true;
        decide();
      },
      Math.max(0, timeoutMs),
    );
    candidates.forEach((candidate, i) => {
      void probe(fetch, baseUrls[i]!, controller.signal).then((result) => {
        if (settled) return;
        probes[i] = { ...candidate, baseUrl: baseUrls[i]!, ...result };
        decide();
      });
    });
    decide();
  });
}

/**
 * The local server to use when nothing is configured: {@link probeLocalServers}'s choice, or
 * `undefined` when no candidate lists a model within `timeoutMs` (default {@link LOCAL_PROBE_TIMEOUT_MS}). Never rejects.
 * @internal the search with its ports injectable, checked against loopback servers on port 0.
 */
export async function discoverLocalServer(options: DiscoverOptions = {}): Promise<LocalServer | undefined> {
  return (await probeLocalServers(options)).server;
}
