/**
 * The model picker of each session, in both ACP shapes: the current `configOptions` select
 * (`id: "model"`, `category: "model"`, a flat option list) and the legacy `models` field with
 * `session/set_model`. See `../shared/ACP-NOTES.md`, "Model selection".
 */
import { RequestError, type SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import type { ModelInfo } from './models.js';
import type { Session } from './session-manager.js';

/** The `configId` of the model select. */
export const MODEL_CONFIG_ID = 'model';

/** The legacy `models` field of a `session/new` answer (removed from the schema, still read by some clients). */
export interface LegacyModelState {
  /** The session's current model id. */
  currentModelId: string;
  /** Every offered model: `modelId` is the id, `name` the display name (the id when none is known). */
  availableModels: { modelId: string; name: string }[];
}

/** Longest model id accepted from a client that is not in the offered list. */
const MAX_TYPED_ID = 200;

/** Whether `value` could be a model id the user typed: non-empty, no whitespace, at most 200 characters. */
export function looksLikeModelId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_TYPED_ID && !/\s/.test(value);
}

/**
 * Per-session model lists. Each session starts with the catalog's list (copied) and gains any
 * id the user selects that was not offered.
 */
export class ModelPicker {
  private readonly lists = new Map<string, ModelInfo[]>();

  /** Give `session` its own copy of `models`, adding `session.model` first when it is missing. */
  attach(session: Session, models: readonly ModelInfo[]): void {
    const list = [...models];
    if (!list.some((model) => model.id === session.model)) list.unshift({ id: session.model });
    this.lists.set(session.id, list);
  }

  /** The session's offered models (its current model alone when it was never attached). */
  models(session: Session): ModelInfo[] {
    return this.lists.get(session.id) ?? [{ id: session.model }];
  }

  /** The context window (tokens) of the session's current model, when `/models` reported it. */
  contextWindow(session: Session): number | undefined {
    return this.models(session).find((model) => model.id === session.model)?.contextWindow;
  }

  /** The session's full config option list: one `select` for the model. */
  configOptions(session: Session): SessionConfigOption[] {
    return [
      {
        id: MODEL_CONFIG_ID,
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: session.model,
        options: this.models(session).map((model) => ({ value: model.id, name: model.name ?? model.id })),
      },
    ];
  }

  /** The legacy `models` field for the session. */
  legacyModels(session: Session): LegacyModelState {
    return {
      currentModelId: session.model,
      availableModels: this.models(session).map((model) => ({ modelId: model.id, name: model.name ?? model.id })),
    };
  }

  /**
   * Make `value` the session's model. An offered id is taken as is; an id not offered is taken
   * and added to this session's list when {@link looksLikeModelId} holds.
   *
   * @throws {RequestError} -32602 naming the valid ids when `value` is neither.
   */
  select(session: Session, value: unknown): void {
    const list = this.models(session);
    const known = (id: string) => list.some((model) => model.id === id);
    if (typeof value !== 'string' || (!known(value) && !looksLikeModelId(value))) {
      const valid = list.map((model) => model.id).join(', ');
      throw RequestError.invalidParams({ value }, `Invalid model ${JSON.stringify(value)}; valid values: ${valid}`);
    }
    if (!known(value)) this.lists.set(session.id, [...list, { id: value }]);
    session.model = value;
  }
}
