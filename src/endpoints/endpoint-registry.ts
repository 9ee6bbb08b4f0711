/**
 * The endpoints (providers) one agent talks to, by id, and the model values that address them.
 *
 * With one endpoint, model values are the endpoint's own ids (`llama3.2`). With several, they are
 * `providerId/modelId` (`ollama/llama3.2`), and the picker lists every endpoint's models. A value
 * whose first segment is not an endpoint id goes to the first (default) endpoint, so a value typed
 * or stored before a second endpoint appeared keeps working.
 */
import { createEndpoint, type Endpoint, type EndpointDeps, type EndpointSettings } from './endpoint.js';
import { pickLocalModel } from './local-discovery.js';
import type { ModelInfo } from './model-catalog.js';

/** Where an endpoint's settings came from (shown in logs and `doctor`). */
type EndpointSource = 'environment' | 'config file' | 'local server' | 'client';

/** The settings of one named endpoint. */
export interface NamedEndpointSettings extends EndpointSettings {
  /** Provider id: letters, digits, `.`, `_`, `-`; no `/`. */
  id: string;
  source: EndpointSource;
}

/** A model value resolved to the endpoint that serves it and the id sent as `model`. */
export interface ResolvedModel {
  endpoint: Endpoint & { settings: NamedEndpointSettings };
  /** The id sent in requests. */
  model: string;
}

type NamedEndpoint = Endpoint & { settings: NamedEndpointSettings };

/** Holds the endpoints, in order; the first is the default. */
export class EndpointRegistry {
  private readonly endpoints = new Map<string, NamedEndpoint>();

  /**
   * @param initial - the endpoints in order of preference (may be empty: then every prompt explains how to configure one).
   * @param deps - shared by every endpoint built now or later ({@link set}).
   */
  constructor(
    initial: readonly NamedEndpointSettings[],
    private readonly deps: EndpointDeps,
  ) {
    for (const settings of initial) this.set(settings);
  }

  /** The endpoints, default first. */
  list(): NamedEndpoint[] {
    return [...this.endpoints.values()];
  }

  /** Number of endpoints. */
  get size(): number {
    return this.endpoints.size;
  }

  /** The endpoint with this id. */
  get(id: string): NamedEndpoint | undefined {
    return this.endpoints.get(id);
  }

  /** Adds the endpoint, or replaces the one with the same id (keeping its place). */
  set(settings: NamedEndpointSettings): NamedEndpoint {
    const endpoint = createEndpoint(settings, this.deps) as NamedEndpoint;
    this.endpoints.set(settings.id, endpoint);
    return endpoint;
  }

  /** Removes the endpoint; `false` when there was none with this id. */
  disable(id: string): boolean {
    return this.endpoints.delete(id);
  }

  /** The model value of `model` on `endpointId`: prefixed only when there are several endpoints. */
  valueOf(endpointId: string, model: string): string {
    return this.endpoints.size > 1 ? `${endpointId}/${model}` : model;
  }

  /**
   * The default model value: the default endpoint's configured model, or, when that is only a
   * stand-in, the first chat model it lists. `undefined` without endpoints. Never rejects.
   */
  async defaultValue(): Promise<string | undefined> {
    const first = this.list()[0];
    if (!first) return undefined;
    const model = first.settings.modelIsStandIn ? (pickLocalModel(await first.catalog.list()) ?? first.settings.model) : first.settings.model;
    return this.valueOf(first.settings.id, model);
  }

  /**
   * The endpoint and model id a model value addresses: `providerId/modelId` when the first
   * segment names an endpoint (and there are several), else the default endpoint with the value
   * as is. `undefined` when there are no endpoints.
   */
  resolve(value: string): ResolvedModel | undefined {
    const slash = value.indexOf('/');
    if (this.endpoints.size > 1 && slash > 0) {
      const endpoint = this.endpoints.get(value.slice(0, slash));
      if (endpoint) return { endpoint, model: value.slice(slash + 1) };
    }
    const first = this.list()[0];
    return first ? { endpoint: first, model: value } : undefined;
  }

  /**
   * Every endpoint's models as model values, default endpoint first; names get the provider id
   * in front when there are several endpoints. Endpoints are asked in parallel; never rejects.
   */
  async models(): Promise<ModelInfo[]> {
    const endpoints = this.list();
    const lists = await Promise.all(endpoints.map((endpoint) => endpoint.catalog.list()));
    if (endpoints.length === 1) return lists[0] ?? [];
    return endpoints.flatMap((endpoint, index) =>
      (lists[index] ?? []).map((model) => ({
        ...model,
        id: this.valueOf(endpoint.settings.id, model.id),
        name: `${endpoint.settings.id}: ${model.name ?? model.id}`,
      })),
    );
  }
}
