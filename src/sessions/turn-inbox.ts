/**
 * The messages a user sends into one prompt turn while it runs (ACP's steering extension,
 * `_session/steering`), between the client and the agent loop. An inbox is made when its prompt
 * arrives; it is `open` while the turn's agent loop runs, which takes the messages before each
 * model request; it closes when the loop ends with nothing waiting, or when the turn ends.
 *
 * What a message put in it becomes, decided here so that nothing is lost and nothing is told
 * twice: put while the inbox is open, it belongs to the turn (given to the model before its next
 * request, or, when the turn ends first, kept with the turn's record and put in front of the next
 * prompt); put before the loop started, it waits for it (and is refused if the prompt ends
 * without one, a slash command say); put after the inbox closed, it is refused at once. A refused
 * message is the caller's to place (a turn of its own, or back to the client).
 *
 * Source of the semantics: `_session/steering` as Claude's ACP agent (agentclientprotocol/
 * claude-agent-acp 0.101.0, `steer()` in `dist/acp-agent.js`) and codex-acp
 * (agentclientprotocol/codex-acp @ ba5bcc3, `src/CodexAcpServer.ts`) answer it.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { SteeringRecord } from './session-records.js';

/** Where an inbox is in its turn. */
type InboxState = 'waiting' | 'open' | 'closed';

/** One message not yet given to the model; `settle` answers a put made before the loop started. */
interface Waiting {
  at: string;
  prompt: ContentBlock[];
  settle?: (taken: boolean) => void;
}

/** The steering inbox of one prompt turn. */
export class TurnInbox {
  private state: InboxState = 'waiting';
  private waiting: Waiting[] = [];
  private readonly taken: SteeringRecord[] = [];

  /** @param now - the clock of each message's `at` (tests). */
  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Whether messages put now belong to the turn (its loop runs). */
  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Whether the inbox takes no more messages. */
  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /**
   * Hands `prompt` to the turn. Resolves `true` once the message belongs to the turn (at once
   * while the loop runs; when the loop starts, for one put before), `false` when the turn will
   * not take it (the inbox closed, or the prompt ended without a loop).
   */
  put(prompt: ContentBlock[]): Promise<boolean> {
    if (this.state === 'closed') return Promise.resolve(false);
    const entry: Waiting = { at: this.now().toISOString(), prompt };
    this.waiting.push(entry);
    if (this.state === 'open') return Promise.resolve(true);
    return new Promise((resolve) => (entry.settle = resolve));
  }

  /** The turn's agent loop starts: the messages put before it are the turn's now. */
  open(): void {
    if (this.state !== 'waiting') return;
    this.state = 'open';
    for (const entry of this.waiting) entry.settle?.(true);
  }

  /** The messages waiting, oldest first, given to the model after its first `afterStep` answers of the turn. */
  take(afterStep: number): ContentBlock[][] {
    if (this.state !== 'open' || this.waiting.length === 0) return [];
    const taken = this.waiting.splice(0);
    for (const entry of taken) this.taken.push({ at: entry.at, afterStep, prompt: entry.prompt });
    return taken.map((entry) => entry.prompt);
  }

  /** Closes the inbox when nothing waits (the loop may end); `false`, the inbox still open, when messages wait (take them and ask again). */
  closeIfEmpty(): boolean {
    if (this.waiting.length > 0 && this.state === 'open') return false;
    this.close(0);
    return true;
  }

  /**
   * Closes the inbox for good and gives every message of the turn, oldest first: those the model
   * was given, then those still waiting, kept as coming after the turn's `answers` answers (no
   * answer followed them). Messages put before a loop that never started are refused instead.
   * Calling it again gives the same list.
   */
  close(answers: number): SteeringRecord[] {
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    const left = this.waiting.splice(0);
    for (const entry of left) {
      if (wasOpen) this.taken.push({ at: entry.at, afterStep: answers, prompt: entry.prompt });
      else entry.settle?.(false);
    }
    return [...this.taken];
  }
}
