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

/** The provider and model answers of one front door. */
export class CatalogAnswers {
  /** Model ids sessions used here, newest first. */
  private readonly recent: string[] = [];

  constructor(
    private readonly catalog: AgentCatalog,
    private readonly version: string,
    private readonly logger: Logger,
  ) {}

  /**
   * The answer to an `acp.providers.*` method: `list` `{providers}`, `status` and `update`
   * `{provider}`, `ensureInstalled` `{installed, version}`, `login` and `logout` `{loggedIn}`.
   * The `options` of a login are not used; only their names are logged.
   * @throws {AgentConnectError} AC_ERR_UNSUPPORTED for another provider or method.
   */
  async provider(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (method === 'acp.providers.list') return { providers: [await this.local()] };
    checkProvider(params['provider']);
    const local = await this.local();
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

  /** The `local` provider: installed and logged in when the endpoint is configured and answers `GET /models` with models. */
  private async local(): Promise<AcProviderInfo> {
    const { configured, answers } = await this.catalog.status();
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
    const found = id === undefined ? undefined : (await this.catalog.models()).find((model) => model.id === id);
    if (!found) throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'Unknown model');
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
