/**
 * Sessions: per-session state (records, model, options) and the one-turn-at-a-time rule.
 *
 * The ACP SDK runs requests concurrently and does not connect `session/cancel` to anything, so
 * this class owns the turn lock: the prompts of a session wait in line in the order they arrived
 * and run one at a time, each with its own AbortController; a cancel aborts the running turn and
 * every prompt waiting behind it; a cancel with no turn running changes nothing. Each prompt has
 * a steering inbox (`turn-inbox.ts`) for the messages sent into its turn while it runs.
 */
import type { Session, SessionState } from './session.js';
import { holdRecords } from './session-memory.js';
import { TurnInbox } from './turn-inbox.js';

export type { Session, SessionState } from './session.js';

/** One prompt of a session, from its arrival to its answer: its place in line, its cancel, its steering inbox. */
export interface Arrival {
  /** Aborts on {@link SessionManager.cancel}, on {@link SessionManager.cancelAll}, or when the request's own signal aborts. */
  readonly signal: AbortSignal;
  /** Resolves once every prompt of the session that arrived before this one has ended. */
  readonly ready: Promise<void>;
  /** The messages sent into this prompt's turn while it runs. */
  readonly inbox: TurnInbox;
  /** The prompt has ended: the next one in line may start. Closes the inbox; idempotent. */
  done(): void;
}

interface Turn {
  done: Promise<unknown>;
  /** The turn's signal: aborted once it is cancelled. */
  signal: AbortSignal;
}

/** A session's prompts not yet ended, oldest first (the first one runs or is about to). */
interface Line {
  readonly prompts: Array<Arrival & { readonly controller: AbortController }>;
  /** Resolves when the newest prompt in line has ended. */
  tail: Promise<void>;
}

/** Holds every session of the process and their running turns. */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly turns = new Map<string, Turn>();
  /** Per session, the prompts that arrived and have not ended. */
  private readonly lines = new Map<string, Line>();

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
   * Run `work` as the session's turn, once every earlier prompt of the session has ended (turns
   * of one session never overlap, and run in the order their prompts arrived). `work` gets the
   * turn's AbortSignal, which aborts on {@link cancel}, on {@link cancelAll}, or when the
   * request's own signal aborts. `placed` is the prompt's {@link arrive} (or that signal: the
   * prompt is then placed now). A turn cancelled while it waited still runs `work`, with an
   * already-aborted signal, so the caller answers `cancelled` the usual way.
   */
  async runTurn<T>(session: Session, work: (signal: AbortSignal) => Promise<T>, placed?: Arrival | AbortSignal): Promise<T> {
    const arrival = placed === undefined || placed instanceof AbortSignal ? this.arrive(session.id, placed) : placed;
    try {
      // First in line: at once (in the same tick, so a cancel right after the call finds the turn started).
      if (this.lines.get(session.id)?.prompts[0] !== arrival) await arrival.ready;
      const turn: Turn = { done: Promise.resolve(), signal: arrival.signal };
      this.turns.set(session.id, turn);
      const promise = work(arrival.signal);
      turn.done = promise;
      try {
        return await promise;
      } finally {
        if (this.turns.get(session.id) === turn) this.turns.delete(session.id);
      }
    } finally {
      if (arrival !== placed) arrival.done();
    }
  }

  /** Whether the session has a turn running, or prompts in line for one (they hold the session object they arrived with). */
  isRunning(id: string): boolean {
    return this.turns.has(id) || this.lines.has(id);
  }

  /**
   * The steering inbox of the session's prompt now first in line (running, or about to run);
   * `undefined` when no prompt of the session is in line.
   */
  inboxOf(id: string): TurnInbox | undefined {
    return this.lines.get(id)?.prompts[0]?.inbox;
  }

  /**
   * Place a prompt of the session in line, before its turn starts: a {@link cancel} from now on
   * (a client may send `session/cancel` right after `session/prompt`) aborts its signal, which
   * the caller passes to {@link runTurn}, so the turn answers `cancelled`; `outer` (the request's
   * own signal) aborting aborts it too. Call `done()` once the prompt has ended.
   */
  arrive(id: string, outer?: AbortSignal): Arrival {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const line = this.lines.get(id) ?? { prompts: [], tail: Promise.resolve() };
    this.lines.set(id, line);
    const ready = line.tail;
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    line.tail = ready.then(() => left);
    const inbox = new TurnInbox();
    let ended = false;
    const arrival = {
      signal: controller.signal,
      ready,
      inbox,
      controller,
      done: () => {
        if (ended) return;
        ended = true;
        outer?.removeEventListener('abort', onOuterAbort);
        inbox.close(0);
        const at = line.prompts.indexOf(arrival);
        if (at >= 0) line.prompts.splice(at, 1);
        if (line.prompts.length === 0 && this.lines.get(id) === line) this.lines.delete(id);
        leave();
      },
    };
    line.prompts.push(arrival);
    return arrival;
  }

  /** Abort the session's running turn and every prompt waiting behind it. Returns whether there was any; without one, nothing changes. */
  cancel(id: string): boolean {
    const prompts = this.lines.get(id)?.prompts ?? [];
    for (const prompt of prompts) prompt.controller.abort();
    return prompts.length > 0;
  }

  /**
   * Resolves once the session's running turn, when it was cancelled, has settled (what it did is
   * saved by then); at once when no cancelled turn is running. Never rejects. A client that comes
   * back for a session its earlier connection left mid-turn reads the turn whole.
   */
  async cancelledSettled(id: string): Promise<void> {
    const turn = this.turns.get(id);
    if (turn?.signal.aborted) await turn.done.catch(() => undefined);
  }

  /** Abort the session's running turn and the prompts in line for it; resolves when the turn has settled (never rejects). */
  async settle(id: string): Promise<void> {
    const turn = this.turns.get(id);
    this.cancel(id);
    await turn?.done.catch(() => undefined);
  }

  /** Abort every running turn and every prompt waiting; resolves when the running turns have settled. */
  async cancelAll(): Promise<void> {
    const running = [...this.turns.values()];
    for (const line of this.lines.values()) for (const prompt of line.prompts) prompt.controller.abort();
    await Promise.allSettled(running.map((turn) => turn.done));
  }
}
