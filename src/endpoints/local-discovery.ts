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
import type { Logger } from '../log.js';
import { modelsUrl, parseModels, type ModelInfo } from './model-catalog.js';

/** The kinds of local server looked for. */
export type LocalProvider = 'ollama' | 'lmstudio' | 'vllm' | 'llamacpp' | 'litellm';

/**
 * One place to look: a loopback port and the server that usually listens there.
 * @internal the tests name their own candidates with it.
 */
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

/**
 * The result of probing one candidate.
 * @internal the tests build the probes they hand noLocalServerHelp with it.
 */
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

/**
 * The candidates in order of preference.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const LOCAL_CANDIDATES: ReadonlyArray<LocalCandidate> = Object.freeze([
  Object.freeze({ port: 11434, provider: 'ollama' as const }),
  Object.freeze({ port: 1234, provider: 'lmstudio' as const }),
  Object.freeze({ port: 8000, provider: 'vllm' as const }),
  Object.freeze({ port: 8080, provider: 'llamacpp' as const }),
  Object.freeze({ port: 4000, provider: 'litellm' as const }),
]);

/** The default host probed: IPv4 loopback, where all five servers listen by default. */
const LOCAL_HOST = '127.0.0.1';
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
const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

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

/** Each server's name, how to start it, and what to do when it lists no model. */
const HOW: Record<LocalProvider, { name: string; start: string; noModels: string }> = {
  ollama: { name: 'Ollama', start: '`ollama serve`, then `ollama pull qwen3:8b`', noModels: 'run `ollama pull qwen3:8b` (or another model)' },
  lmstudio: {
    name: 'LM Studio',
    start: '`lms server start` (or Developer → Start Server in the app)',
    noModels: 'download a model in LM Studio (or `lms get <model>`)',
  },
  vllm: { name: 'vLLM', start: '`vllm serve <model>`', noModels: 'start it with a model: `vllm serve <model>`' },
  llamacpp: { name: 'llama.cpp', start: '`llama-server -m <model>.gguf`', noModels: 'start it with a model: `llama-server -m <model>.gguf`' },
  litellm: { name: 'LiteLLM', start: '`litellm --model <provider>/<model>`', noModels: 'add a model to its `model_list`' },
};

/** What {@link noLocalServerHelp} says, all optional. */
export interface NoServerHelpOptions {
  /** The places searched. @defaultValue {@link LOCAL_CANDIDATES} */
  candidates?: ReadonlyArray<LocalCandidate> | undefined;
  /** What each probe found: a server that answered without being usable, or did not answer in time, is named. @defaultValue none */
  probes?: ReadonlyArray<LocalProbe> | undefined;
  /** The host searched. @defaultValue {@link LOCAL_HOST} */
  host?: string | undefined;
  /** How long the search waited, in ms; said with the ports tried. @defaultValue not said */
  waitedMs?: number | undefined;
  /** True inside a container: also says how to reach a server on the host (`host.docker.internal`, `--add-host` on Linux, a server listening beyond its loopback). @defaultValue false */
  container?: boolean | undefined;
}

/** `850 ms` below a second, `2.5 s` from one. */
const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * Words for the user when no local server was found: the ports tried and how long the search
 * waited, what answered without being usable or did not answer in time (when `probes` are given),
 * how to start each server or point at it with `OPENAI_BASE_URL`, and `OPENAI_API_KEY` for a
 * cloud provider. Markdown, several lines.
 */
export function noLocalServerHelp(options: NoServerHelpOptions = {}): string {
  const { candidates = LOCAL_CANDIDATES, probes = [], host = LOCAL_HOST, waitedMs, container = false } = options;
  const tried = candidates.map(({ port, provider }) => `${HOW[provider].name} :${port}`).join(', ');
  const waited = waitedMs === undefined ? '' : `; waited ${duration(waitedMs)}`;
  const lines = [
    `No OpenAI-compatible server with a model was found on ${host} (tried ${tried}${waited}), and neither OPENAI_BASE_URL nor OPENAI_API_KEY is set.`,
  ];
  for (const p of probes) {
    const where = `${host}:${p.port}`;
    if (p.outcome === 'no-models') lines.push(`${HOW[p.provider].name} answers on ${where} but lists no models: ${HOW[p.provider].noModels}.`);
    if (p.outcome === 'http-error') lines.push(`Something answers on ${where}, but not as an OpenAI-compatible server (HTTP ${p.status} for /v1/models).`);
    if (p.outcome === 'timeout') {
      lines.push(
        `Something accepted the connection on ${where} but did not answer /v1/models${waitedMs === undefined ? ' in time' : ` within ${duration(waitedMs)}`} ` +
          `(a busy machine, or a server still loading): set \`OPENAI_BASE_URL=http://${urlHost(host)}:${p.port}/v1\` to skip the search (doctor waits longer with \`--timeout-ms 20000\`).`,
      );
    }
  }
  lines.push('Start a local server (it is found automatically), or point at one with OPENAI_BASE_URL:');
  for (const { port, provider } of candidates) {
    lines.push(`- ${HOW[provider].name}: ${HOW[provider].start} — \`OPENAI_BASE_URL=http://${urlHost(host)}:${port}/v1\``);
  }
  if (container) {
    lines.push(
      'openai-acp runs in a container, where 127.0.0.1 is the container itself; host.docker.internal (the host) was ' +
        'tried too and did not answer. To use a server on the host: ' +
        'run the container with `--add-host=host.docker.internal:host-gateway` (Linux; Docker Desktop defines the ' +
        'name), make the server listen beyond its loopback (Ollama: `OLLAMA_HOST=0.0.0.0 ollama serve`), ' +
        'and set `OPENAI_BASE_URL=http://host.docker.internal:11434/v1` (with the port of your server).',
    );
  }
  lines.push('For a cloud provider, set OPENAI_API_KEY and OPENAI_MODEL (and OPENAI_BASE_URL for one other than OpenAI, e.g. `https://openrouter.ai/api/v1`).');
  return lines.join('\n');
}
