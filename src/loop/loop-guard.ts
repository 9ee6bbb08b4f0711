/**
 * Bounds on the agent loop, pure: a step limit, and the same call with the same arguments three
 * times in a row counted as a loop. Either ends the turn with `max_turn_requests` and a sentence
 * saying why (ACP `StopReason`, https://agentclientprotocol.com/protocol/v1/prompt-turn#stop-reasons).
 */

/**
 * Default most model requests in one prompt turn (`OPENAI_ACP_MAX_STEPS`).
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const DEFAULT_MAX_STEPS = 50;
/**
 * The same call this many times in a row is a loop.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const REPEATS_FOR_LOOP = 3;

/** One tool call as the guard compares them: name and arguments text. */
export interface GuardedCall {
  name: string;
  arguments: string;
}

/** Why the loop must stop, in words for the user; `undefined` while it may go on. */
export type LoopStop = { reason: 'steps' | 'repeat'; message: string } | undefined;

/** The arguments text with JSON whitespace and key order made irrelevant (falls back to the text). */
export function canonicalArguments(args: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(args.trim() === '' ? '{}' : args)));
  } catch {
    return args.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/** Tracks one turn's steps. */
export class LoopGuard {
  private steps = 0;
  private last = '';
  private repeats = 0;

  /** @param maxSteps - most model requests in the turn (≥ 1). */
  constructor(private readonly maxSteps: number = DEFAULT_MAX_STEPS) {}

  /** Model requests made so far. */
  get stepsTaken(): number {
    return this.steps;
  }

  /** Call before each model request: a stop when the step limit is reached. */
  beforeRequest(): LoopStop {
    if (this.steps >= this.maxSteps) {
      return {
        reason: 'steps',
        message: `Stopped after ${this.maxSteps} model requests in this turn (the step limit, OPENAI_ACP_MAX_STEPS). Say "continue" to let the agent go on.`,
      };
    }
    this.steps++;
    return undefined;
  }

  /**
   * Call with each answer's tool calls, in order: a stop when one call (same name, same
   * arguments) has now come {@link REPEATS_FOR_LOOP} times in a row.
   */
  afterAnswer(calls: readonly GuardedCall[]): LoopStop {
    for (const call of calls) {
      const key = `${call.name}\u0000${canonicalArguments(call.arguments)}`;
      this.repeats = key === this.last ? this.repeats + 1 : 1;
      this.last = key;
      if (this.repeats >= REPEATS_FOR_LOOP) {
        return {
          reason: 'repeat',
          message:
            `Stopped: the model called ${call.name} with the same arguments ${REPEATS_FOR_LOOP} times in a row, ` +
            'which looks like a loop. Rephrase the request or give more detail.',
        };
      }
    }
    return undefined;
  }
}
