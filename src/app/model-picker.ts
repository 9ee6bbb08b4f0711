/**
 * The pickers of each session, in both ACP shapes: the current `configOptions` selects (the model,
 * `id: "model"`, `category: "model"`, a flat option list; and reasoning effort, `id:
 * "thought_level"`, `category: "thought_level"`) and the legacy `models` field with
 * `session/set_model` (gone from the v1 schema, still sent by Open Design's fallback,
 * acp-ai-provider and acp-factory). Source: https://agentclientprotocol.com/protocol/v1/session-config-options.
 */
import { RequestError, type SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import type { ModelInfo } from '../endpoints/model-catalog.js';
import type { Session } from '../sessions/session.js';

/** The `configId` of the model select. */
export const MODEL_CONFIG_ID = 'model';
/** The `configId` of the reasoning-effort select. */
export const THOUGHT_LEVEL_CONFIG_ID = 'thought_level';
/** The reasoning-effort value that sends nothing (the provider's own default). */
export const DEFAULT_THOUGHT_LEVEL = 'default';

/**
 * The reasoning-effort levels a session's current model offers, `default` excluded (e.g.
 * `["low", "medium", "high"]`); empty when the provider has no reasoning effort.
 */
export type ThoughtLevels = (session: Session) => readonly string[];

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

/** Where a session's own model list is kept: its live session (`LiveSession.models`); absent: never attached. */
export interface ModelList {
  models: ModelInfo[] | undefined;
}

/**
 * The model pickers of sessions. Each session starts with the catalog's list (copied) and gains
 * any id the user selects that was not offered; the list is kept by the session's live session.
 */
export class ModelPicker {
  /**
   * @param listOf - where the session's list is kept (its live session).
   * @param thoughtLevels - the levels of the session's model; none by default.
   */
  constructor(
    private readonly listOf: (session: Session) => ModelList,
    private readonly thoughtLevels: ThoughtLevels = () => [],
  ) {}

  /** Give `session` its own copy of `models`, adding `session.model` first when it is missing. */
  attach(session: Session, models: readonly ModelInfo[]): void {
    const list = [...models];
    if (!list.some((model) => model.id === session.model)) list.unshift({ id: session.model });
    this.listOf(session).models = list;
  }

  /** The session's offered models (its current model alone when it was never attached). */
  models(session: Session): ModelInfo[] {
    return this.listOf(session).models ?? [{ id: session.model }];
  }

  /** The context window (tokens) of the session's current model, when `/models` reported it. */
  contextWindow(session: Session): number | undefined {
    return this.models(session).find((model) => model.id === session.model)?.contextWindow;
  }

  /**
   * The session's full config option list: a `select` for the model, and one for reasoning
   * effort when the model has levels (`default` first: send nothing).
   */
  configOptions(session: Session): SessionConfigOption[] {
    const options: SessionConfigOption[] = [
      {
        id: MODEL_CONFIG_ID,
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: session.model,
        options: this.models(session).map((model) => ({ value: model.id, name: model.name ?? model.id })),
      },
    ];
    const levels = this.thoughtLevels(session);
    if (levels.length > 0) {
      options.push({
        id: THOUGHT_LEVEL_CONFIG_ID,
        name: 'Reasoning effort',
        category: 'thought_level',
        type: 'select',
        currentValue: this.thoughtLevel(session),
        options: [DEFAULT_THOUGHT_LEVEL, ...levels].map((level) => ({
          value: level,
          name: level === DEFAULT_THOUGHT_LEVEL ? 'Default' : level[0]!.toUpperCase() + level.slice(1),
        })),
      });
    }
    return options;
  }

  /**
   * The reasoning effort the session's next request sends: its chosen level when the current
   * model offers it, else `default` (send nothing).
   */
  thoughtLevel(session: Session): string {
    const chosen = session.options[THOUGHT_LEVEL_CONFIG_ID];
    return chosen && this.thoughtLevels(session).includes(chosen) ? chosen : DEFAULT_THOUGHT_LEVEL;
  }

  /**
   * Set the session's reasoning effort.
   * @throws {RequestError} -32602 naming the valid levels when the model does not offer `value`.
   */
  selectThoughtLevel(session: Session, value: unknown): void {
    const valid = [DEFAULT_THOUGHT_LEVEL, ...this.thoughtLevels(session)];
    if (typeof value !== 'string' || !valid.includes(value)) {
      throw RequestError.invalidParams({ value }, `Invalid reasoning effort ${JSON.stringify(value)}; valid values: ${valid.join(', ')}`);
    }
    session.options[THOUGHT_LEVEL_CONFIG_ID] = value;
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
    if (!known(value)) this.listOf(session).models = [...list, { id: value }];
    session.model = value;
  }
}
