/**
 * Sessions: per-session state (records, model, options) and the one-turn-at-a-time rule.
 *
 * The ACP SDK runs requests concurrently and does not connect `session/cancel` to anything, so
 * this class owns the turn lock: each session has at most one running turn, each turn its own
 * AbortController. A new prompt cancels the running turn and waits for it to settle; a cancel
 * with no turn running changes nothing.
 */
import type { ConversationRecord } from './conversation.js';
import { holdRecords } from './session-memory.js';

/** One conversation. */
export interface Session {
  readonly id: string;
  /** Working directory the client gave at `session/new`. */
  readonly cwd: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /**
   * The live conversation: turns, `/clear`s and `/compact`s from the latest reset on, oldest
   * first (as stored); what came before is on disk only. Added to through `addRecord`
   * (`session-memory.ts`), which keeps the session's index.
   */
  readonly records: ConversationRecord[];
  /** The model value this session's next request uses (`providerId/modelId` with several endpoints). */
  model: string;
  /** Other config option values by config id, e.g. `{thought_level: "high"}`. */
  readonly options: Record<string, string>;
  /** Title shown in session lists; set after the first turn. */
  title?: string | undefined;
  /**
   * The estimate and the provider's `prompt_tokens` of the latest request, in tokens, used to
   * calibrate the next estimate; absent until a provider reported usage.
   */
  calibration?: { estimated: number; actual: number } | undefined;
}

/** What restoring a session from the store needs. */
export type SessionState = Omit<Session, 'calibration'>;

interface Turn {
  readonly controller: AbortController;
  done: Promise<unknown>;
}

/** Holds every session of the process and their running turns. */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly turns = new Map<string, Turn>();
  /** Prompts received but not yet running as a turn (waiting for the endpoints, a command refresh). */
  private readonly arriving = new Map<string, Set<AbortController>>();

  /** Create a session with a fresh unique id (a UUID). */
  create(cwd: string, model: string): Session {
    // Web Crypto's randomUUID: node:crypto is then loaded at the first session, not at start-up.
    const session: Session = { id: globalThis.crypto.randomUUID(), cwd, createdAt: new Date().toISOString(), records: [], model, options: {} };
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * Hold a session restored from the store (`state.records`: its whole history), replacing any
   * copy held under its id (a turn of that copy still running keeps its lock: turns of one id
   * never overlap). Only the live part of the history stays in memory (`session-memory.ts`).
   */
  restore(state: SessionState): Session {
    const session: Session = { ...state, records: [] };
    holdRecords(session, state.records);
    this.sessions.set(session.id, session);
    return session;
  }

  /** Cancel the session's turn and forget it (the store keeps it). Returns whether it was held. */
  remove(id: string): boolean {
    this.cancel(id);
    return this.sessions.delete(id);
  }

  /** The session with this id, or `undefined`. */
  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Every session held, in creation (or restore) order. */
  all(): Session[] {
    return [...this.sessions.values()];
  }

  /** Number of sessions held. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * Run `work` as the session's turn. A running turn is cancelled first and awaited, so turns of
   * one session never overlap. `work` gets the turn's AbortSignal, which aborts on
   * {@link cancel}, on {@link cancelAll}, when a newer prompt arrives, or when `outer` aborts.
   * If the turn is cancelled while still waiting for its predecessor, `work` still runs, with an
   * already-aborted signal, so the caller answers `cancelled` the usual way.
   */
  async runTurn<T>(session: Session, work: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    const previous = this.turns.get(session.id);
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const turn: Turn = { controller, done: Promise.resolve() };
    this.turns.set(session.id, turn);
    const run = async () => {
      if (previous) {
        previous.controller.abort();
        await previous.done.catch(() => undefined);
      }
      return work(controller.signal);
    };
    const promise = run();
    turn.done = promise;
    try {
      return await promise;
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      if (this.turns.get(session.id) === turn) this.turns.delete(session.id);
    }
  }

  /** Whether the session has a turn running. */
  isRunning(id: string): boolean {
    return this.turns.has(id);
  }

  /** Whether the session has a turn running or a prompt arriving. */
  isBusy(id: string): boolean {
    return this.turns.has(id) || this.arriving.has(id);
  }

  /**
   * Mark a prompt of the session as arrived, before its turn starts: a {@link cancel} in between
   * (a client may send `session/cancel` right after `session/prompt`) aborts the returned signal,
   * which the caller passes to {@link runTurn} as `outer`, so the turn answers `cancelled`.
   * `outer` aborting aborts it too. Call `done()` once the turn has ended.
   */
  arrive(id: string, outer?: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const set = this.arriving.get(id) ?? new Set<AbortController>();
    set.add(controller);
    this.arriving.set(id, set);
    return {
      signal: controller.signal,
      done: () => {
        outer?.removeEventListener('abort', onOuterAbort);
        set.delete(controller);
        if (set.size === 0 && this.arriving.get(id) === set) this.arriving.delete(id);
      },
    };
  }

  /** Abort the session's running turn and the prompts arriving for it. Returns whether there was any; without one, nothing changes. */
  cancel(id: string): boolean {
    const turn = this.turns.get(id);
    const arriving = this.arriving.get(id);
    turn?.controller.abort();
    for (const controller of arriving ?? []) controller.abort();
    return turn !== undefined || (arriving?.size ?? 0) > 0;
  }

  /** Abort the session's running turn and the prompts arriving for it; resolves when the turn has settled (never rejects). */
  async settle(id: string): Promise<void> {
    const turn = this.turns.get(id);
    this.cancel(id);
    await turn?.done.catch(() => undefined);
  }

  /** Abort every running turn and every prompt arriving; resolves when the running turns have settled. */
  async cancelAll(): Promise<void> {
    const running = [...this.turns.values()];
    for (const turn of running) turn.controller.abort();
    for (const arriving of this.arriving.values()) for (const controller of arriving) controller.abort();
    await Promise.allSettled(running.map((turn) => turn.done));
  }
}
