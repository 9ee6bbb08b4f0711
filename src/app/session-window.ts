/**
 * The context window of a session's model, as the user sees it: resolved once per request from
 * every source (`endpoints/window-resolver.ts` for the precedence), shown in the meter
 * (`usage_update`) after `session/new` and `session/load`, and told once per session when it is
 * too small for coding work, with the fix for that server (the profile's `contextWindowFix`, or
 * its `nativeChat.windowFix` while the agent asks for the window itself).
 *
 * The notice goes out at the session's first prompt (updates sent outside a prompt turn are not
 * shown by every client): a `notice` to a client that advertised `session.notices`, else an
 * `agent_thought_chunk`: Zed shows thoughts in a collapsible block beside the answer, so the user
 * sees it without it becoming part of the answer (nor of the saved assistant text the model reads back).
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { Config } from '../config/config.js';
import type { Logger } from '../shared/log.js';
import type { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import type { LearnedWindows } from '../endpoints/learned-windows.js';
import type { ServerWindow } from '../endpoints/server-context.js';
import { resolveContextWindow, SMALL_WINDOW_TOKENS, type ResolvedWindow } from '../endpoints/window-resolver.js';
import { liveConversation } from '../sessions/conversation.js';
import type { Session } from '../sessions/session.js';
import { estimateTokens } from '../context/token-estimate.js';
import { DEFAULT_WINDOW_FIX } from '../openai/user-errors.js';
import type { ModelPicker } from './model-picker.js';
import { windowUsage } from '../loop/to-acp.js';
import { savedCostOf } from '../sessions/live-records.js';
import type { UserNotice } from '../loop/notify.js';
import type { UpdateSink } from '../tools/index.js';
import { grouped } from '../shared/grouped.js';

/** A resolved window with what the user may need to hear about it. */
export interface KnownWindow extends ResolvedWindow {
  /** How to give this server a larger window (profile data), or the generic advice. */
  fix: string;
  /** What the server reported, for messages: the runtime window (and whether it was assumed) and the trained one. */
  server: ServerWindow;
}

/** What resolving a window needs; getters, because `authenticate` may replace the configuration. */
export interface SessionWindowDeps {
  config: () => Config;
  picker: ModelPicker;
  registry: () => EndpointRegistry;
  /** Where windows learned from overflow answers are read. @defaultValue what the resolved endpoint learned (`Endpoint.learned.windows`) */
  learned?: LearnedWindows | undefined;
  /** Told once per endpoint and model when a learned window overrules `OPENAI_CONTEXT_WINDOW`. @defaultValue none */
  logger?: Logger | undefined;
}

/** Resolves without waiting longer once `signal` aborts (the lookup itself goes on, shared). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', stop), resolve(value)),
      () => (signal.removeEventListener('abort', stop), resolve(undefined)),
    );
  });
}

/** `text` with its first letter in upper case. */
const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** `4096` → `4,096`. */

/** How the window was found, in words, e.g. "as the server reports". */
function sourceWords(known: KnownWindow): string {
  switch (known.source) {
    case 'configured':
      return 'set by OPENAI_CONTEXT_WINDOW';
    case 'learned':
      return 'as the server said when it rejected a longer request';
    case 'runtime':
      return known.server.assumed
        ? "Ollama's default, assumed because the server did not report the window it loaded the model with"
        : 'the window the server runs the model with';
    case 'catalogue':
      return "as the server's model list reports";
    case 'trained':
      return 'the window the model was trained for';
  }
}

/**
 * The notice for a window below {@link SMALL_WINDOW_TOKENS}, e.g. "The context window of
 * qwen3:8b is 4,096 tokens (the window the server runs the model with): small for coding work…
 * To give it more: restart Ollama with…".
 */
function smallWindowNotice(model: string, known: KnownWindow): string {
  const trained = known.server.trained && known.server.trained > known.window ? ` The model itself can take ${grouped(known.server.trained)}.` : '';
  return (
    `The context window of ${model} is ${grouped(known.window)} tokens (${sourceWords(known)}): small for coding ` +
    `work, so long files and command output will be cut and earlier steps left out or summarised.${trained} ` +
    `To give it more: ${known.fix}.`
  );
}

/** Each session's window, meter and small-window notice. */
export class SessionWindows {
  /** Endpoint and model pairs whose learned window overruling the configured one was logged. */
  private readonly overruled = new Set<string>();

  constructor(private readonly deps: SessionWindowDeps) {}

  /**
   * The window of the session's current model, by the precedence of `window-resolver.ts`;
   * `undefined` when nothing says one. The server is asked only when neither the configuration
   * nor a learned window decides (an Ollama model may be loaded to read it, see
   * `server-context.ts`); `signal` stops the waiting. Never rejects.
   */
  async of(session: Session, signal?: AbortSignal): Promise<KnownWindow | undefined> {
    return this.ofModel(session.model, this.deps.picker.contextWindow(session), signal);
  }

  /** {@link of} for the model value `model` outside a session; `catalogue` is the window its model list gives. */
  async ofModel(model: string, catalogue: number | undefined, signal?: AbortSignal): Promise<KnownWindow | undefined> {
    const target = this.deps.registry().resolve(model);
    const native = target?.endpoint.nativeChat?.inUse ? target.endpoint.profile.nativeChat?.windowFix : undefined;
    const fix = native ?? target?.endpoint.profile.contextWindowFix ?? DEFAULT_WINDOW_FIX;
    const configured = this.deps.config().contextWindow;
    const learned = target ? (this.deps.learned ?? target.endpoint.learned.windows).get(target.endpoint.client.options.url, target.model) : undefined;
    const server: ServerWindow =
      configured || learned || !target ? {} : ((await untilAborted(target.endpoint.serverWindowOf?.(target.model) ?? Promise.resolve({}), signal)) ?? {});
    const resolved = resolveContextWindow({ configured, learned, runtime: server.runtime, catalogue, trained: server.trained });
    const key = target && `${target.endpoint.client.options.url}\n${target.model}`;
    if (resolved?.overrules !== undefined && key && !this.overruled.has(key)) {
      this.overruled.add(key);
      this.deps.logger?.warn(
        `the server rejected requests over ${resolved.window} tokens, so that window is used instead of OPENAI_CONTEXT_WINDOW=${resolved.overrules}`,
        { model: target.model },
      );
    }
    return resolved && { ...resolved, fix, server };
  }

  /**
   * The small-window notice (told once per session, key `small-window`) when the window is below
   * {@link SMALL_WINDOW_TOKENS}; else `undefined`.
   */
  notice(session: Session, known: KnownWindow | undefined): UserNotice | undefined {
    if (!known || known.window >= SMALL_WINDOW_TOKENS) return undefined;
    const text = smallWindowNotice(session.model, known);
    return {
      once: 'small-window',
      severity: 'warning',
      title: `Small context window: ${grouped(known.window)} tokens`,
      description: capitalised(text.slice(text.indexOf(': ') + 2)),
      fallback: { text: `${text}\n\n` },
    };
  }

  /**
   * {@link announce} to `client` once the current request's answer has gone out (the client must
   * know the session first): after `session/new`, `load`, `resume` and a model change.
   */
  announceTo(client: AgentContext, session: Session): void {
    const send = async (updates: SessionUpdate[]) => {
      for (const update of updates) await client.notify('session/update', { sessionId: session.id, update });
    };
    setImmediate(() => void this.announce(session, send));
  }

  /**
   * Sends the meter for a session that was just created or loaded: `used` = estimated tokens of
   * the conversation the model still sees (0 for a new session), `size` = the window, `cost` the
   * cumulative cost saved with its turns (when a provider reported one); nothing when
   * no window is known. Never rejects.
   */
  async announce(session: Session, send: UpdateSink): Promise<void> {
    try {
      const known = await this.of(session);
      if (!known) return;
      const live = liveConversation(session.records);
      const messages = live.turns.flat();
      if (live.summary) messages.unshift({ role: 'system', content: live.summary });
      // The session's cost so far goes with it: a client shows the latest meter's cost.
      await send([windowUsage(estimateTokens(messages), known.window, savedCostOf(session))]);
    } catch {
      // The meter is a courtesy: a closed connection or a vanished endpoint changes nothing else.
    }
  }
}
