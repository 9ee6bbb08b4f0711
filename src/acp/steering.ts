/**
 * `_session/steering`: ACP's steering extension, a message the user sends while the agent works,
 * served as Claude's ACP agent and codex-acp serve it (advertised as `_meta.steering.supported` in
 * the `initialize` answer). Params `{sessionId, prompt: ContentBlock[], _meta?: {steering?:
 * {idleBehavior?: "promptRequired"}}}`; the answer's `outcome`:
 * - `injected`: a turn of the session runs; the message joins its conversation before the model's
 *   next request (`sessions/turn-inbox.ts`, `loop/turn-steering.ts`) and is saved with the turn;
 * - `promptRequired` (`reason: "noRunningTurn"`), when no turn runs and the client asked for it
 *   with `idleBehavior: "promptRequired"`: nothing was done, the client sends it as a prompt;
 * - `startedNewTurn`, when no turn runs otherwise: the message is a prompt of its own, run once the
 *   prompts already waiting have ended (its updates go out as a prompt's, with no prompt answer);
 * - `failed` with a `reason` and a `message`: the session is not held (`sessionNotFound`), the
 *   message is empty (`emptyPrompt`) or too large (`promptTooLarge`), or the turn it started was
 *   cancelled before it ran (`cancelled`). Params of the wrong shape get -32602.
 * Steering requests of one session are handled one at a time, in the order they came.
 *
 * Sources: Claude's ACP agent (agentclientprotocol/claude-agent-acp 0.101.0, `steer()` and
 * `parseSteerRequest` in `dist/acp-agent.js`), codex-acp (agentclientprotocol/codex-acp @ ba5bcc3,
 * `src/CodexAcpServer.ts`, `src/AcpExtensions.ts`), and the client side of Emacs agent-shell
 * (xenodium/agent-shell, `agent-shell-experimental.el`: it sends `idleBehavior: "promptRequired"`).
 */
import { RequestError, type AgentContext, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { promptToUserContent } from '../context/prompt-content.js';
import { isRecord } from '../shared/json-value.js';
import { estimateMessageTokens, promptBudget } from '../context/token-estimate.js';
import type { Session } from '../sessions/session.js';
import { markUsed } from '../sessions/live-records.js';
import type { AgentState } from '../app/agent-state.js';
import type { ClientPeer } from '../app/client-peer.js';
import { promptUpdates } from '../app/live-session.js';
import type { PromptRunner } from '../app/prompt-runner.js';
import { useSession } from '../app/session-upkeep.js';
import { checkPromptBlocks } from './validate-params.js';
import { grouped } from '../shared/grouped.js';

/** The extension's method name. */
export const STEERING_METHOD = '_session/steering';

/** Most text in one steering message (text blocks and embedded resources' text), in UTF-8 bytes: 1 MiB. */
const MAX_STEERING_TEXT_BYTES = 1024 * 1024;
/** Most of one steering message as JSON (images included), in characters: 16 MiB. */
const MAX_STEERING_CHARS = 16 * 1024 * 1024;

/** Why a steering message was not taken. */
type SteeringFailure = 'sessionNotFound' | 'emptyPrompt' | 'promptTooLarge' | 'cancelled';

/** The answer to `_session/steering`. */
export type SteeringResponse =
  | { outcome: 'injected' }
  | { outcome: 'startedNewTurn' }
  | { outcome: 'promptRequired'; reason: 'noRunningTurn' }
  | { outcome: 'failed'; reason: SteeringFailure; message: string };

/** The params as checked. */
export interface SteeringParams {
  sessionId: string;
  prompt: ContentBlock[];
  /** `_meta.steering.idleBehavior`: `promptRequired` asks to get the message back when no turn runs. */
  idleBehavior: 'promptRequired' | undefined;
}

/**
 * The params of a `_session/steering` request, checked as Claude's agent checks them.
 * @throws {RequestError} -32602 when they are not an object with a string `sessionId` and a `prompt`
 * array of content blocks, when `_meta.steering.idleBehavior` is other than `promptRequired`, or for
 * an image block that is not base64 of an image type.
 */
export function parseSteeringParams(raw: unknown): SteeringParams {
  if (!isRecord(raw)) throw RequestError.invalidParams(undefined, 'steering params must be an object');
  const { sessionId, prompt, _meta } = raw;
  if (typeof sessionId !== 'string' || sessionId === '') throw RequestError.invalidParams(undefined, 'steering params need a sessionId');
  if (!Array.isArray(prompt)) throw RequestError.invalidParams(undefined, 'steering params need a prompt array');
  prompt.forEach((block, index) => {
    if (!isRecord(block) || typeof block.type !== 'string' || (block.type === 'text' && typeof block.text !== 'string'))
      throw RequestError.invalidParams({ block: index }, `prompt[${index}] is not a content block`);
  });
  checkPromptBlocks(prompt as ContentBlock[]);
  const steering = isRecord(_meta) ? _meta['steering'] : undefined;
  const idleBehavior = isRecord(steering) ? steering['idleBehavior'] : undefined;
  if (idleBehavior !== undefined && idleBehavior !== 'promptRequired') throw RequestError.invalidParams(undefined, 'unsupported steering idleBehavior');
  return { sessionId, prompt: prompt as ContentBlock[], idleBehavior };
}

/**
 * Why the message cannot be taken whatever the session's state (empty, or larger than the
 * bounds), or `undefined`. Pure.
 */
function steeringProblem(prompt: readonly ContentBlock[]): SteeringResponse | undefined {
  let textBytes = 0;
  let content = false;
  for (const block of prompt) {
    const text = block.type === 'text' ? block.text : block.type === 'resource' && 'text' in block.resource ? block.resource.text : undefined;
    if (text === undefined) content = true;
    else {
      textBytes += Buffer.byteLength(text);
      if (text.trim() !== '') content = true;
    }
  }
  if (!content) return failed('emptyPrompt', 'The steering message is empty: nothing was sent.');
  if (textBytes > MAX_STEERING_TEXT_BYTES)
    return failed(
      'promptTooLarge',
      `The steering message holds ${grouped(textBytes)} bytes of text, more than ${grouped(MAX_STEERING_TEXT_BYTES)}. ` +
        'Send it as a prompt, or attach the file instead.',
    );
  if (JSON.stringify(prompt).length > MAX_STEERING_CHARS)
    return failed('promptTooLarge', `The steering message is larger than ${grouped(MAX_STEERING_CHARS)} characters: send it as a prompt.`);
  return undefined;
}

function failed(reason: SteeringFailure, message: string): SteeringResponse {
  return { outcome: 'failed', reason, message };
}

/** The answer for a session the asking connection does not hold (or that is not in memory): `failed`, `sessionNotFound`. */
export function steeringNotFound(sessionId: string): SteeringResponse {
  return failed('sessionNotFound', `Session not found: ${sessionId.slice(0, 200)}`);
}

/** Serves `_session/steering`; one per agent. */
export class Steering {
  constructor(
    private readonly state: AgentState,
    private readonly runner: PromptRunner,
  ) {}

  /**
   * Answers one steering request from the connection of `peer`, which holds the session
   * (`session-authority.ts`), after the session's earlier ones; a session closed meanwhile is not
   * found. What it sends, the session's other holders see as `user_message_chunk`s. Never rejects
   * but for a store or turn start failure.
   */
  async steer(params: SteeringParams, client: AgentContext, peer: ClientPeer): Promise<SteeringResponse> {
    // The session's steering requests wait for each other (kept by its live session).
    const live = this.state.sessions.live(params.sessionId);
    const before = live?.steering ?? Promise.resolve();
    const answer = before.then(() => this.handle(params, client, peer));
    const chain = answer.catch(() => undefined);
    if (live) live.steering = chain;
    try {
      return await answer;
    } finally {
      const now = this.state.sessions.live(params.sessionId);
      if (now?.steering === chain) now.steering = undefined;
    }
  }

  private async handle(params: SteeringParams, client: AgentContext, peer: ClientPeer): Promise<SteeringResponse> {
    const { sessionId, prompt } = params;
    const session = this.state.sessions.get(sessionId);
    const answer = !session ? steeringNotFound(sessionId) : (steeringProblem(prompt) ?? (await this.deliver(session, params, client, peer)));
    this.state.logger.debug('steering message', { sessionId, outcome: answer.outcome, ...(answer.outcome === 'failed' ? { reason: answer.reason } : {}) });
    return answer;
  }

  private async deliver(session: Session, params: SteeringParams, client: AgentContext, peer: ClientPeer): Promise<SteeringResponse> {
    const inbox = this.state.slotOf(session).line.inbox;
    if (inbox?.isOpen) {
      const tooLarge = await this.overWindow(session, params.prompt);
      if (tooLarge) return tooLarge;
    }
    if (inbox && (await inbox.put(params.prompt))) {
      void this.state.sessions.of(session).tell(promptUpdates(params.prompt), peer);
      return { outcome: 'injected' };
    }
    if (params.idleBehavior === 'promptRequired') return { outcome: 'promptRequired', reason: 'noRunningTurn' };
    return this.startTurn(session, params.prompt, client, peer);
  }

  /** `promptTooLarge` when the message alone would take more than half of what the session's window leaves the prompt. */
  private async overWindow(session: Session, prompt: ContentBlock[]): Promise<SteeringResponse | undefined> {
    const known = await this.state.windows.of(session);
    if (!known) return undefined;
    const tokens = estimateMessageTokens({ role: 'user', content: promptToUserContent(prompt) });
    const room = Math.floor(promptBudget(known.window, this.state.config.maxTokens) / 2);
    if (tokens <= room) return undefined;
    return failed(
      'promptTooLarge',
      `The steering message is about ${grouped(tokens)} tokens; ` +
        `with a context window of ${grouped(known.window)} the running turn has room for ${grouped(room)}.`,
    );
  }

  /** The message as a prompt of its own, after the session's prompts already in line; answered once that turn starts. */
  private async startTurn(session: Session, prompt: ContentBlock[], client: AgentContext, peer: ClientPeer): Promise<SteeringResponse> {
    const placed = this.state.slotOf(session).line.arrive();
    await placed.ready;
    if (placed.signal.aborted) {
      placed.done();
      return failed('cancelled', 'The session was cancelled before the steering message could start a turn.');
    }
    const live = this.state.sessions.of(session);
    const ran = live.runFor(peer);
    void live.tell(promptUpdates(prompt), peer);
    const run = async () => {
      try {
        await useSession(this.state, session);
        await this.state.endpointsKnown();
        const answer = await this.runner.run(this.runner.start(session, client, peer, placed), prompt, placed);
        this.state.logger.debug('the turn of a steering message ended', { sessionId: session.id, stopReason: answer.stopReason });
      } catch (error) {
        this.state.logger.error('the turn of a steering message failed', { sessionId: session.id, error: (error as Error)?.message ?? String(error) });
      } finally {
        ran();
        markUsed(session);
        this.state.quiet.worked();
        placed.done();
      }
    };
    void run();
    return { outcome: 'startedNewTurn' };
  }
}
