/**
 * One session's turn line: the one-turn-at-a-time rule of a session, a value its live session owns
 * (`app/live-session.ts`).
 *
 * The ACP SDK runs requests concurrently and does not connect `session/cancel` to anything, so
 * the line is the turn lock: the prompts of a session wait in line in the order they arrived and
 * run one at a time, each with its own AbortController; a cancel aborts the running turn and
 * every prompt waiting behind it; a cancel with no turn running changes nothing. Each prompt has
 * a steering inbox (`turn-inbox.ts`) for the messages sent into its turn while it runs.
 */
import { TurnInbox } from './turn-inbox.js';

/** One prompt of a session, from its arrival to its answer: its place in line, its cancel, its steering inbox. */
export interface Arrival {
  /** Aborts on {@link TurnLine.cancel}, or when the request's own signal aborts. */
  readonly signal: AbortSignal;
  /** Resolves once every prompt of the session that arrived before this one has ended. */
  readonly ready: Promise<void>;
  /** The messages sent into this prompt's turn while it runs. */
  readonly inbox: TurnInbox;
  /** The prompt has ended: the next one in line may start. Closes the inbox; idempotent. */
  done(): void;
}

/** The running turn: what it settles with, and its signal (aborted once it is cancelled). */
interface Turn {
  done: Promise<unknown>;
  signal: AbortSignal;
}

type Placed = Arrival & { readonly controller: AbortController };

/** One session's prompts not yet ended, oldest first (the first one runs or is about to), and its running turn. */
export class TurnLine {
  private readonly prompts: Placed[] = [];
  /** Resolves when the newest prompt in line has ended. */
  private tail: Promise<void> = Promise.resolve();
  private running: Turn | undefined;

  /**
   * Run `work` as the session's turn, once every earlier prompt of the session has ended (turns
   * never overlap, and run in the order their prompts arrived). `work` gets the turn's
   * AbortSignal, which aborts on {@link cancel} or when the request's own signal aborts. `placed`
   * is the prompt's {@link arrive} (or that signal: the prompt is then placed now). A turn
   * cancelled while it waited still runs `work`, with an already-aborted signal, so the caller
   * answers `cancelled` the usual way.
   */
  async run<T>(work: (signal: AbortSignal) => Promise<T>, placed?: Arrival | AbortSignal): Promise<T> {
    const arrival = placed === undefined || placed instanceof AbortSignal ? this.arrive(placed) : placed;
    try {
      // First in line: at once (in the same tick, so a cancel right after the call finds the turn started).
      if (this.prompts[0] !== arrival) await arrival.ready;
      const turn: Turn = { done: Promise.resolve(), signal: arrival.signal };
      this.running = turn;
      const promise = work(arrival.signal);
      turn.done = promise;
      try {
        return await promise;
      } finally {
        if (this.running === turn) this.running = undefined;
      }
    } finally {
      if (arrival !== placed) arrival.done();
    }
  }

  /** Whether a turn runs, or prompts are in line for one. */
  get isRunning(): boolean {
    return this.running !== undefined || this.prompts.length > 0;
  }

  /** The steering inbox of the prompt now first in line (running, or about to run); `undefined` when none is in line. */
  get inbox(): TurnInbox | undefined {
    return this.prompts[0]?.inbox;
  }

  /**
   * Place a prompt in line, before its turn starts: a {@link cancel} from now on (a client may
   * send `session/cancel` right after `session/prompt`) aborts its signal, which the caller passes
   * to {@link run}, so the turn answers `cancelled`; `outer` (the request's own signal) aborting
   * aborts it too. Call `done()` once the prompt has ended.
   */
  arrive(outer?: AbortSignal): Arrival {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const ready = this.tail;
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    this.tail = ready.then(() => left);
    const inbox = new TurnInbox();
    let ended = false;
    const arrival: Placed = {
      signal: controller.signal,
      ready,
      inbox,
      controller,
      done: () => {
        if (ended) return;
        ended = true;
        outer?.removeEventListener('abort', onOuterAbort);
        inbox.close(0);
        const at = this.prompts.indexOf(arrival);
        if (at >= 0) this.prompts.splice(at, 1);
        leave();
      },
    };
    this.prompts.push(arrival);
    return arrival;
  }

  /** Abort the running turn and every prompt waiting behind it. Returns whether there was any; without one, nothing changes. */
  cancel(): boolean {
    for (const prompt of this.prompts) prompt.controller.abort();
    return this.prompts.length > 0;
  }

  /**
   * Resolves once the running turn, when it was cancelled, has settled (what it did is saved by
   * then); at once when no cancelled turn is running. Never rejects. A client that comes back for
   * a session its earlier connection left mid-turn reads the turn whole.
   */
  async cancelledSettled(): Promise<void> {
    const turn = this.running;
    if (turn?.signal.aborted) await turn.done.catch(() => undefined);
  }

  /** Abort the running turn and the prompts in line for it; resolves when the turn has settled (never rejects). */
  async settle(): Promise<void> {
    const turn = this.running;
    this.cancel();
    await turn?.done.catch(() => undefined);
  }
}
