/**
 * One prompt turn as a value: built once where the turn starts (`app/prompt-runner.ts`
 * `PromptRunner.start`, for `session/prompt` and for a steering message that starts a turn) and
 * passed as the first argument from the prompt runner down to the model sender and the agent loop.
 * A turn is ACP's prompt turn, from `session/prompt` to its `stopReason`
 * (https://agentclientprotocol.com/protocol/v1/prompt-turn).
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../sessions/session.js';
import type { TurnInbox } from '../sessions/turn-inbox.js';
import type { ClientToolCapabilities, UpdateSink } from '../tools/index.js';
import type { ClientFeatures } from './notify.js';
import type { TurnExtras } from './turn-extras.js';

/** One prompt turn of one session, for one client connection. */
export interface PromptTurn {
  /** The session the prompt was sent to. */
  readonly session: Session;
  /** The turn's id (a UUID): its record is saved under it and its chunks' `messageId`s derive from it (`stepMessageIds`). */
  readonly turnId: string;
  /** The turn's cancel (`session/cancel`, or the prompt's connection gone): aborts the request under way and every tool call. */
  readonly signal: AbortSignal;
  /** The one way the turn's `session/update`s go to the client that sent the prompt. */
  readonly send: UpdateSink;
  /** The editor connection that sent the prompt: the turn's tool calls ask it (`fs/*`, `terminal/*`, permission). */
  readonly client: AgentContext;
  /** What that connection advertised of notices, compaction entities and elicitation. */
  readonly features: ClientFeatures;
  /** What that connection advertised for files and terminals. */
  readonly capabilities: ClientToolCapabilities;
  /** The messages the user sends into the turn (`_session/steering`); the loop takes them before each request. */
  readonly inbox: TurnInbox;
  /** The turn's plan and checkpoints (`turn-extras.ts`). */
  readonly extras: TurnExtras;
}
