/**
 * Telling the user something that is not part of the answer (a small window, an MCP server that
 * failed to start, an overflow recovered, a fall-back to tool calls written as text, a model that
 * takes no tools): one function, {@link userNotifier}, picks the form by what the client
 * advertised. A client with `clientCapabilities.session.notices` gets a `notice` update (a short
 * title, the fix in its description); any other client gets the notice's plain-text form as an
 * agent message of its own (never a thought), or nothing when the notice has none.
 *
 * Source: ACP `notice` session update, https://agentclientprotocol.com/rfds/session-notices
 * (schema `Notice`: `severity` info | warning | error, non-empty `title`, optional `description`;
 * "Agents MUST only send notices when the Client advertised the `session.notices` Client capability").
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../tools/index.js';

/** The capabilities of the client the loop's protocol choices depend on (absent means false). */
export interface ClientFeatures {
  /** `session.notices`: `notice` updates may be sent. */
  notices: boolean;
  /** `session.compaction`: `compaction_update` / `compaction_summary_chunk` may be sent. */
  compaction: boolean;
  /** `elicitation.form` / `elicitation.url`: `elicitation/create` in that mode may be sent. */
  elicitation: { form: boolean; url: boolean };
}

/** Reads {@link ClientFeatures} from `initialize`'s `clientCapabilities` (`{}` advertises; omitted or `null` does not). */
export function clientFeatures(capabilities: ClientCapabilities | undefined | null): ClientFeatures {
  const on = (value: unknown) => typeof value === 'object' && value !== null;
  return {
    notices: on(capabilities?.session?.notices),
    compaction: on(capabilities?.session?.compaction),
    elicitation: { form: on(capabilities?.elicitation?.form), url: on(capabilities?.elicitation?.url) },
  };
}

/** A client that advertised nothing of {@link ClientFeatures}. */
export const NO_FEATURES: ClientFeatures = clientFeatures(undefined);

/** Something to tell the user. */
export interface UserNotice {
  /** Told at most once per session under this key (e.g. `overflow-recovered`); absent: every time. */
  once?: string | undefined;
  severity: 'info' | 'warning' | 'error';
  /** Short, plain text, standing alone (e.g. "Small context window"). */
  title: string;
  /** The detail and the fix, plain text. */
  description?: string | undefined;
  /**
   * What a client without notices is shown instead: a message of its own (never a thought, which
   * clients show as the model's reasoning: acpx prints `[thinking]`). Absent: such a client is not told.
   */
  fallback?: { text: string } | undefined;
}

/** Tells the user `notice`; resolves once sent (or skipped). */
export type Notify = (notice: UserNotice) => Promise<void>;

/** A new message id (ACP `messageId`: all chunks of one message share it). */
export function newMessageId(): string {
  return randomUUID();
}

/**
 * The update(s) that tell `notice` to a client with `features`: a `notice` when it advertised
 * `session.notices`, else the fall-back text (a chunk of its own message), else none. Pure but for the fresh message id.
 */
function noticeUpdates(notice: UserNotice, features: Pick<ClientFeatures, 'notices'>): SessionUpdate[] {
  if (features.notices) {
    const update: SessionUpdate = { sessionUpdate: 'notice', severity: notice.severity, title: notice.title };
    if (notice.description) update.description = notice.description;
    return [update];
  }
  if (!notice.fallback) return [];
  return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: notice.fallback.text }, messageId: newMessageId() }];
}

/**
 * The {@link Notify} of one session: sends through `send`, by `features`, remembering the
 * `once` keys already told in `told` (the session's set, so "once" holds across its turns).
 */
export function userNotifier(send: UpdateSink, features: Pick<ClientFeatures, 'notices'>, told: Set<string>): Notify {
  return async (notice) => {
    if (notice.once !== undefined) {
      if (told.has(notice.once)) return;
      told.add(notice.once);
    }
    const updates = noticeUpdates(notice, features);
    if (updates.length > 0) await send(updates);
  };
}
