/**
 * Ollama through its native chat API: per model, the window asked for (`options.num_ctx`), how
 * the model takes `think`, the fallback to `/v1` when `/api/chat` is not served, and the one-time
 * note when the model no longer fits in GPU memory at that window.
 *
 * - The window: `OPENAI_ACP_OLLAMA_NUM_CTX` (default 32768), capped by the trained window from
 *   `POST /api/show` (`model_info["<arch>.context_length"]`), decided once per model and kept, so
 *   every request asks for the same one (another value reloads the model). A `num_ctx` in
 *   `OPENAI_EXTRA_BODY`'s `options` is sent as it is and is the window then.
 * - `think`: none for a model whose `/api/show` `capabilities` lack `thinking`; a level for the
 *   models the profile lists (GPT-OSS); a boolean otherwise.
 * - Not served (a gateway exposing only `/v1`): remembered per server root, in the agent's
 *   learned facts (`learned-facts.ts`) when given one.
 * - Memory: after the first answer, `GET /api/ps`; `0 < size_vram < size` means part of the model
 *   runs on the CPU (Ollama docs, context-length.mdx: "avoid offloading the model to CPU").
 *
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md (show, ps, chat).
 */
import type { FetchLike } from '../openai/http.js';
import type { Logger } from '../shared/log.js';
import type { NativeChatProfile } from '../config/provider-profiles.js';
import type { NativeChatRouter, NativeChatTarget } from '../openai/native-chat.js';
import type { ThinkStyle } from '../openai/ollama-chat-request.js';
import { ollamaRequest, type OllamaAnswer } from './ollama-api.js';
import { cpuNotice, RELOAD_NOTICE_MS, reloadNotice } from './ollama-notices.js';
import { parseOllamaPs } from './ollama-ps.js';
import { parseShowFacts, suggestNumCtx, type ShowFacts } from './ollama-show.js';
import { requestedNumCtx } from './server-context.js';

/** What the router needs. */
export interface OllamaNativeOptions {
  /** The endpoint base, e.g. `http://127.0.0.1:11434/v1`; the native API is at its root. */
  baseUrl: string;
  /** `OPENAI_ACP_OLLAMA_NUM_CTX`, tokens; 0: Chat Completions (`target` routes nothing; `describe` still reads the server). */
  numCtx: number;
  profile: NativeChatProfile;
  /** Auth and user headers, as the endpoint sends them. */
  headers: Record<string, string>;
  extraBody?: Record<string, unknown> | undefined;
  logger?: Logger | undefined;
  /** @defaultValue `defaultFetch` of http.ts */
  fetch?: FetchLike | undefined;
  /** Bound of one `/api/show` or `/api/ps` look, in ms. @defaultValue `SERVER_CONTEXT_TIMEOUT_MS` of server-context.ts */
  timeoutMs?: number | undefined;
  /** Server roots found without `/api/chat`, with why (shared by the agent's endpoints). @defaultValue this router's own */
  notServed?: Map<string, string> | undefined;
}

/** What `doctor` shows for one model. */
export interface OllamaWindowFacts {
  /** `native` (`/api/chat`), or `v1` with the reason. */
  api: { kind: 'native'; url: string } | { kind: 'v1'; reason: string };
  /** The window asked for, tokens (native only). */
  asked?: number | undefined;
  /** The trained window from `/api/show`, tokens. */
  trained?: number | undefined;
  /** The window the server runs now (`/api/ps` `context_length`), when the model is loaded. */
  runtime?: number | undefined;
  /** Whether the model thinks (`/api/show` capabilities list `thinking`); `undefined` when not listed. */
  thinks?: boolean | undefined;
  /** The `OPENAI_ACP_OLLAMA_NUM_CTX` value. */
  setting: number;
}

/** The {@link NativeChatRouter} of one Ollama endpoint. */
export class OllamaNativeChat implements NativeChatRouter {
  /** The server root, e.g. `http://127.0.0.1:11434`. */
  readonly root: string;
  private readonly shows = new Map<string, Promise<ShowFacts | undefined>>();
  private readonly answeredModels = new Set<string>();
  private readonly checkedMemory = new Set<string>();
  /** Models whose latest answer waited for a load after an earlier answer, with how long (ms): told after the turn. */
  private readonly reloads = new Map<string, number>();
  /** Models whose route was logged. */
  private readonly announced = new Set<string>();
  private readonly notServedAt: Map<string, string>;

  constructor(private readonly options: OllamaNativeOptions) {
    this.notServedAt = options.notServed ?? new Map();
    this.root = options.baseUrl
      .trim()
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .replace(/\/v1$/, '');
  }

  /** Whether chat goes (or will first try to go) to `/api/chat`, the agent asking for the window itself. */
  get inUse(): boolean {
    return this.options.numCtx !== 0 && !this.notServed;
  }

  /** Why `/api/chat` is not used on this server, once found not served (by this agent). */
  get notServed(): string | undefined {
    return this.notServedAt.get(this.root);
  }

  async target(model: string): Promise<NativeChatTarget | undefined> {
    if (this.options.numCtx === 0 || this.notServed) return undefined;
    const facts = await this.show(model);
    if (this.notServed) return undefined;
    const target: NativeChatTarget = { url: `${this.root}/api/chat`, numCtx: this.windowFrom(facts), think: this.thinkStyle(model, facts) };
    if (!this.announced.has(model)) {
      this.announced.add(model);
      this.options.logger?.info(`chat with ${model} goes to Ollama's native API with a ${target.numCtx}-token window (options.num_ctx)`, {
        url: target.url,
        model,
        numCtx: target.numCtx,
        trained: facts?.trained,
      });
    }
    return target;
  }

  fallBack(reason: string): void {
    if (this.notServed) return;
    this.notServedAt.set(this.root, reason);
    this.options.logger?.warn(
      `Ollama's native /api/chat is not served (${reason}); using the OpenAI-compatible /v1 from now on, with the server's own context window`,
    );
  }

  answered(model: string, loadMs?: number): void {
    // An answer after the first that waited for a load: the model had been unloaded meanwhile.
    if (this.answeredModels.has(model) && loadMs !== undefined && loadMs >= RELOAD_NOTICE_MS) this.reloads.set(model, loadMs);
    this.answeredModels.add(model);
  }

  /** The window asked for `model` (tokens): the context window for the meter and the fitting; `undefined` when `/v1` is used. */
  async window(model: string): Promise<number | undefined> {
    const target = await this.target(model);
    return target?.numCtx;
  }

  /**
   * The window report for `model` when the native API is used: the window asked for as the
   * runtime one (each request sets it), the trained one from `/api/show`; `undefined` on `/v1`.
   */
  async serverWindow(model: string): Promise<{ runtime: number; trained?: number } | undefined> {
    const target = await this.target(model);
    if (!target?.numCtx) return undefined;
    const trained = (await this.show(model))?.trained;
    return trained ? { runtime: target.numCtx, trained } : { runtime: target.numCtx };
  }

  /**
   * After an answer that waited for the model to load again ({@link reloadNotice}), those words;
   * else once per model, after its first native answer: the words telling the user that the
   * model runs partly on the CPU at this window, with a smaller window that would fit, or
   * `undefined`. Never rejects.
   */
  async memoryNotice(model: string): Promise<string | undefined> {
    const reload = this.reloads.get(model);
    if (reload !== undefined) {
      this.reloads.delete(model);
      return reloadNotice(model, reload);
    }
    if (!this.answeredModels.has(model) || this.checkedMemory.has(model)) return undefined;
    this.checkedMemory.add(model);
    const running = parseOllamaPs(await this.getJson('GET', '/api/ps'), model);
    const numCtx = await this.window(model);
    if (!running?.size || !running.sizeVram || running.sizeVram >= running.size || !numCtx) return undefined;
    const suggested = suggestNumCtx(numCtx, running.size - running.sizeVram, (await this.show(model))?.kvBytesPerToken);
    return cpuNotice(model, numCtx, { size: running.size, sizeVram: running.sizeVram }, suggested);
  }

  /** What `doctor` shows for `model` (asks `/api/show` and `/api/ps`). Never rejects. */
  async describe(model: string): Promise<OllamaWindowFacts> {
    const facts = await this.show(model);
    const running = parseOllamaPs(await this.getJson('GET', '/api/ps'), model);
    const setting = this.options.numCtx;
    const reason = setting === 0 ? 'OPENAI_ACP_OLLAMA_NUM_CTX=0' : this.notServed;
    const out: OllamaWindowFacts = reason
      ? { api: { kind: 'v1', reason }, setting }
      : { api: { kind: 'native', url: `${this.root}/api/chat` }, asked: this.windowFrom(facts), setting };
    if (facts?.trained) out.trained = facts.trained;
    if (facts?.capabilities) out.thinks = facts.capabilities.includes('thinking');
    if (running?.contextLength) out.runtime = running.contextLength;
    return out;
  }

  private windowFrom(facts: ShowFacts | undefined): number {
    const explicit = requestedNumCtx(this.options.extraBody);
    if (explicit) return explicit;
    const trained = facts?.trained;
    return trained && trained < this.options.numCtx ? trained : this.options.numCtx;
  }

  private thinkStyle(model: string, facts: ShowFacts | undefined): ThinkStyle {
    const levels = this.options.profile.thinkLevels.some((pattern) => pattern.test(model));
    if (facts?.capabilities && !facts.capabilities.includes('thinking')) return 'none';
    return levels ? 'levels' : facts?.capabilities ? 'boolean' : 'unknown';
  }

  /** `/api/show` of `model`, asked once (a failure is asked again next time); notes a cap and a server without the API. */
  private show(model: string): Promise<ShowFacts | undefined> {
    const known = this.shows.get(model);
    if (known) return known;
    const look = (async () => {
      const answer = await this.request('POST', '/api/show', { model });
      if (answer === 'not-served') {
        this.fallBack(`${this.root}/api/show is not there`);
        return undefined;
      }
      const facts = answer === undefined ? undefined : parseShowFacts(answer.body);
      // Only an answer about the model is kept: a failure, or a model not pulled yet, is asked again.
      if (answer === undefined || answer.status >= 300) this.shows.delete(model);
      const trained = facts?.trained;
      if (trained && trained < this.options.numCtx && !requestedNumCtx(this.options.extraBody)) {
        this.options.logger?.info(`OPENAI_ACP_OLLAMA_NUM_CTX (${this.options.numCtx}) is above the trained window of ${model}; asking for ${trained} tokens`, {
          model,
          trained,
        });
      }
      return facts;
    })();
    this.shows.set(model, look);
    return look;
  }

  private async getJson(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const answer = await this.request(method, path, body);
    return answer === undefined || answer === 'not-served' || answer.status >= 300 ? undefined : answer.body;
  }

  /** One bounded look at the server's native API (`ollama-api.ts`). */
  private request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<OllamaAnswer | 'not-served' | undefined> {
    const { headers, fetch, timeoutMs } = this.options;
    return ollamaRequest(`${this.root}${path}`, method, body, { headers, fetch, timeoutMs });
  }
}
