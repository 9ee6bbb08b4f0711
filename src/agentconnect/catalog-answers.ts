/**
 * The AgentConnect answers that come from what the agent knows of its endpoints: the `local`
 * provider (its list, status, install, update, login and logout, all answered with the endpoint's
 * real state and changing nothing, since the endpoint is configured where the host runs) and the
 * models (the default first, the recent ones, one with its window). Pure over an
 * {@link AgentCatalog} apart from the list of recently used models.
 *
 * Source: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `docs/PROTOCOL.md` ("Provider
 * Install and Login Flow": "If already logged in, login is a no-op"), `schemas/acp-methods.json`
 * (`ProviderEnsureResult {installed, version?}`, `ProviderLoginResult {loggedIn}`), and the connect
 * widget `packages/ui/src/components/connect.ts` (it selects the first model listed).
 */
import type { AgentCatalog, ModelInfo } from '../acp/agent.js';
import type { Logger } from '../shared/log.js';
import { AgentConnectError, checkProvider, loginOptionNames, pickModel, PROVIDER, type AcModelInfo, type AcProviderInfo } from './protocol.js';

/** How many recently used models `acp.models.recent` keeps. */
const RECENT_MODELS = 10;
/**
 * How long the endpoint's state is kept before it is asked again, in ms (the reference host's `statusCacheTtlMs` in `packages/host/src/host.ts`).
 * @internal the tests step a clock past it.
 */
export const STATUS_TTL_MS = 8_000;
/** Most model ids named in a refusal of an unknown model. */
const NAMED_MODELS = 20;

/**
 * The refusal of a model id the endpoints do not list, naming those they do (at most
 * {@link NAMED_MODELS}, then how many more `acp.models.list` gives).
 * @internal its wording is checked on its own.
 */
export function unknownModel(id: string, offered: readonly string[]): AgentConnectError {
  const named = offered.slice(0, NAMED_MODELS).join(', ');
  const more = offered.length > NAMED_MODELS ? ` and ${offered.length - NAMED_MODELS} more (acp.models.list)` : '';
  const list = offered.length > 0 ? `this host offers ${named}${more}` : 'this host lists no model';
  return new AgentConnectError('AC_ERR_INVALID_ARGS', `Unknown model ${JSON.stringify(id.slice(0, 200))}: ${list}`);
}

/** The provider and model answers of one front door. */
export class CatalogAnswers {
  /** Model ids sessions used here, newest first. */
  private readonly recent: string[] = [];
  /** The endpoint's state as last asked (in flight or answered), and when it was asked (ms since the epoch). */
  private checked: { at: number; state: Promise<{ configured: boolean; answers: boolean }> } | undefined;

  /** @param now - the clock, ms since the epoch (tests pass their own). */
  constructor(
    private readonly catalog: AgentCatalog,
    private readonly version: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The answer to an `acp.providers.*` method: `list` `{providers}`, `status` and `update`
   * `{provider}`, `ensureInstalled` `{installed, version}`, `login` and `logout` `{loggedIn}`.
   * The state is the endpoint's (`GET /models` answered with models), asked again when older than
   * {@link STATUS_TTL_MS}, and at once for `status` with `options.force` and for `update`,
   * `ensureInstalled`, `login` and `logout` (as the reference host's cache is: PROTOCOL.md
   * "Session semantics", `options.fast`/`options.force`). The `options` of a login are not used;
   * only their names are logged.
   * @throws {AgentConnectError} AC_ERR_UNSUPPORTED for another provider or method.
   */
  async provider(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (method === 'acp.providers.list') return { providers: [await this.local()] };
    checkProvider(params['provider']);
    const options = params['options'];
    const forced = options !== null && typeof options === 'object' && (options as Record<string, unknown>)['force'] === true;
    const local = await this.local(method !== 'acp.providers.status' || forced);
    switch (method) {
      case 'acp.providers.status':
      case 'acp.providers.update':
        return { provider: local };
      case 'acp.providers.ensureInstalled':
        return { installed: local.installed, version: local.version };
      case 'acp.providers.login':
      case 'acp.providers.logout': {
        const ignored = loginOptionNames(params);
        if (ignored.length > 0) this.logger.info(`${method}: the endpoint is configured where this host runs; the options sent were not used`, { ignored });
        return { loggedIn: local.loggedIn };
      }
      default:
        throw new AgentConnectError('AC_ERR_UNSUPPORTED', `${method.slice(0, 100)} is not offered by this host`);
    }
  }

  /** The `local` provider: installed and logged in when the endpoint is configured and answers `GET /models` with models; asked again when `force`d or older than {@link STATUS_TTL_MS}. */
  private async local(force = false): Promise<AcProviderInfo> {
    const now = this.now();
    if (force || !this.checked || now - this.checked.at >= STATUS_TTL_MS) this.checked = { at: now, state: this.catalog.status({ recheck: true }) };
    const { configured, answers } = await this.checked.state;
    const up = configured && answers;
    return { id: PROVIDER, name: 'Local model (openai-acp)', installed: up, loggedIn: up, version: this.version };
  }

  /** The endpoints' models, the default one first (the connect widget picks the first; one the server does not list is added). */
  async models(): Promise<AcModelInfo[]> {
    const models = await this.catalog.models();
    const fallback = await this.catalog.defaultModel();
    if (fallback === undefined) return models.map(modelInfo);
    const first = models.find((model) => model.id === fallback) ?? { id: fallback };
    return [first, ...models.filter((model) => model !== first)].map(modelInfo);
  }

  /**
   * Checks a model id an app asked for (after `pickModel`): one the endpoints list, or the default
   * model; the endpoint is asked again before a refusal (it may have a new model since).
   * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for another, naming the models offered.
   */
  async checkModel(id: string): Promise<void> {
    if ((await this.models()).some((model) => model.id === id)) return;
    this.checked = { at: this.now(), state: this.catalog.status({ recheck: true }) };
    await this.checked.state;
    const models = await this.models();
    if (!models.some((model) => model.id === id))
      throw unknownModel(
        id,
        models.map((model) => model.id),
      );
  }

  /** The models sessions used here, newest first; the default model before any. */
  async recentModels(): Promise<AcModelInfo[]> {
    const models = await this.catalog.models();
    const fallback = await this.catalog.defaultModel();
    const ids = this.recent.length > 0 ? this.recent : fallback ? [fallback] : [];
    return ids.map((id) => modelInfo(models.find((model) => model.id === id) ?? { id }));
  }

  /**
   * One model (`model` as `pickModel` reads it) with the window the agent would use.
   * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a model the endpoints do not list.
   */
  async modelInfo(value: unknown): Promise<AcModelInfo> {
    const id = pickModel(value) ?? (await this.catalog.defaultModel());
    const models = await this.catalog.models();
    const found = id === undefined ? undefined : models.find((model) => model.id === id);
    if (!found)
      throw unknownModel(
        id ?? '',
        models.map((model) => model.id),
      );
    // One model: worth asking the server for the window it runs the model with.
    const contextWindow = await this.catalog.window(found.id);
    return modelInfo(contextWindow ? { ...found, contextWindow } : found);
  }

  /** A session uses `model` (`undefined`: the default model) from now on. */
  async used(model: string | undefined): Promise<void> {
    const id = model ?? (await this.catalog.defaultModel());
    if (id) this.recent.splice(0, this.recent.length, id, ...this.recent.filter((earlier) => earlier !== id).slice(0, RECENT_MODELS - 1));
  }
}

/** An agent model as AgentConnect's `ModelInfo`. */
function modelInfo(model: ModelInfo): AcModelInfo {
  return { id: model.id, provider: PROVIDER, displayName: model.name ?? model.id, ...(model.contextWindow ? { contextWindow: model.contextWindow } : {}) };
}
