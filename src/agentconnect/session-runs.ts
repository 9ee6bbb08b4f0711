/**
 * The runs of the AgentConnect host's sessions: each `acp.sessions.send` is one run, one ACP
 * prompt turn, whose events go to the connection that sent it, ending with its `final` (or
 * `error`), also when another connection has taken the session over meanwhile. One run at a time
 * per session: a send while a run is under way is refused (`AC_ERR_BUSY`), unless that run was
 * cancelled and is ending, when the send waits for its end (as the reference host lets a send
 * follow a cancel at once). A cancel is answered once the run has ended (its `final` sent), or
 * after {@link CANCEL_WAIT_MS} when it takes longer (the send after it then waits as said).
 *
 * Source: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `packages/host/src/host.ts`
 * (`acp.sessions.cancel`: the run is dropped, `final {cancelled: true}` emitted, then the answer;
 * a run's events go to the `emit` of the connection that sent it) and `docs/PROTOCOL.md`
 * ("Session semantics": cancel "emits a terminal event with `cancelled: true`"); the SDK's
 * request timeout, 8,000 ms by default (`AgentConnect.connect`, `timeoutMs`).
 */
import type { PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import type { AcpBridge } from './acp-bridge.js';
import { TurnEvents } from './event-map.js';
import { AgentConnectError, type AcEvent } from './protocol.js';
import type { Peer } from './session-events.js';

/** Longest a cancel waits for its run to end before answering, in ms: under the SDK's 8,000 ms request timeout. */
const CANCEL_WAIT_MS = 5_000;

/** One send's run. */
interface Run {
  /** The connection that sent it: its events go there. */
  peer: Peer;
  text: string;
  events: TurnEvents;
  cancel: AbortController;
  /** The answer `{accepted: true}` is out: it may start. */
  ready: boolean;
  started: boolean;
  cancelled: boolean;
  ended: Promise<void>;
  end: () => void;
}

/** What the runs are made with. */
export interface SessionRunsDeps {
  /** The ACP connection of `peer`'s WebSocket, whose requests its runs are; absent once it is gone. */
  bridgeOf: (peer: Peer) => AcpBridge | undefined;
  logger: Logger;
  /** Redacts configured secrets from words sent to an app. */
  redact: (text: string) => string;
  /** Sends `event` of `sessionId` to `peer`. */
  emit: (peer: Peer, sessionId: string, event: AcEvent) => void;
}

/** The runs of every session of one front door: per session, the run under way and at most one waiting for its end. */
export class SessionRuns {
  private readonly lines = new Map<string, Run[]>();

  constructor(private readonly deps: SessionRunsDeps) {}

  /**
   * A run of `text` sent by `peer`; returns what starts it, to be called once the answer
   * `{accepted: true}` is out (a run waiting for a cancelled one starts at that one's end).
   * @throws {AgentConnectError} AC_ERR_BUSY while a run that was not cancelled is under way or waiting.
   */
  add(peer: Peer, sessionId: string, text: string): () => void {
    const line = this.lines.get(sessionId) ?? [];
    if (line.some((run) => !run.cancelled))
      throw new AgentConnectError('AC_ERR_BUSY', 'A run is in progress in this session; cancel it or wait for its final event');
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const run: Run = {
      peer,
      text,
      events: new TurnEvents(sessionId),
      cancel: new AbortController(),
      ready: false,
      started: false,
      cancelled: false,
      ended,
      end,
    };
    line.push(run);
    this.lines.set(sessionId, line);
    return () => {
      run.ready = true;
      this.startNext(sessionId);
    };
  }

  /** Whether `peer` sent a run of the session that has not ended. */
  hasRunOf(peer: Peer, sessionId: string): boolean {
    return (this.lines.get(sessionId) ?? []).some((run) => run.peer === peer);
  }

  /** The sessions with a run under way sent by `peer`. */
  sessionsRunBy(peer: Peer): string[] {
    return [...this.lines].filter(([, line]) => line[0]?.peer === peer).map(([sessionId]) => sessionId);
  }

  /**
   * Gives `update`, which came to the connection of `from`, to the run under way: only that run's
   * own connection tells it (another holder's copy of it is dropped). False when no run is under
   * way (an update outside any run, such as the meter after resume).
   */
  update(sessionId: string, update: SessionUpdate, from: Peer): boolean {
    const run = this.lines.get(sessionId)?.[0];
    if (!run?.started) return false;
    if (run.peer !== from) return true;
    for (const event of run.events.update(update)) this.deps.emit(run.peer, sessionId, event);
    return true;
  }

  /**
   * Stops the session's runs (`session/cancel` for the one under way, its prompt request cancelled
   * too; one not started yet ends as cancelled without starting) and waits for them to end, at
   * most `waitMs`. Resolves with whether the session had a run.
   */
  async cancel(sessionId: string, waitMs = CANCEL_WAIT_MS): Promise<boolean> {
    const line = [...(this.lines.get(sessionId) ?? [])];
    if (line.length === 0) return false;
    const live = line.filter((run) => !run.cancelled);
    for (const run of live) run.cancelled = true;
    if (line[0]!.started && live.includes(line[0]!)) await this.deps.bridgeOf(line[0]!.peer)?.cancel(sessionId);
    for (const run of live) run.cancel.abort();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    await Promise.race([Promise.all(line.map((run) => run.ended)), late]);
    clearTimeout(timer);
    return true;
  }

  /** Starts the first run of the session's line when its answer is out and it has not started. */
  private startNext(sessionId: string): void {
    const run = this.lines.get(sessionId)?.[0];
    if (!run?.ready || run.started) return;
    run.started = true;
    if (run.cancel.signal.aborted) {
      this.finish(sessionId, run, { stopReason: 'cancelled' });
      return;
    }
    const bridge = this.deps.bridgeOf(run.peer);
    if (!bridge) {
      this.finish(sessionId, run, { stopReason: 'cancelled' });
      return;
    }
    bridge.prompt(sessionId, run.text, run.cancel.signal).then(
      (response) => this.finish(sessionId, run, response),
      (error: unknown) => {
        this.deps.logger.warn('an AgentConnect run failed', { sessionId, error: (error as Error)?.message ?? String(error) });
        this.finish(sessionId, run, undefined, this.deps.redact((error as Error)?.message ?? 'internal error'));
      },
    );
  }

  /** The run ended: its closing events to its sender, then the next run of the line starts. */
  private finish(sessionId: string, run: Run, response: PromptResponse | undefined, failure?: string): void {
    const line = this.lines.get(sessionId) ?? [];
    line.splice(line.indexOf(run), 1);
    if (line.length === 0) this.lines.delete(sessionId);
    const events: AcEvent[] = response ? run.events.end(response) : [{ type: 'error', data: { message: failure, providerSessionId: sessionId } }];
    for (const event of events) this.deps.emit(run.peer, sessionId, event);
    run.end();
    this.startNext(sessionId);
  }
}
