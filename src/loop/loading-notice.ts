/**
 * A user waiting for the first byte of an answer is told when the server is loading the model
 * (Ollama loads a model at its first request, 10–90 s for 7B–32B on a laptop; llama-server
 * answers 503 "Loading model" while it starts; LM Studio loads just in time): after
 * {@link LOADING_LOOK_MS} without any of the answer, the server is asked once
 * (`endpoints/model-loading.ts`), and when it says the model is not loaded yet the user is told
 * once, through the one notifier (`notify.ts`): an ACP `notice`, or a short message chunk beside
 * the answer (never part of the saved answer). The wait itself goes on, within `OPENAI_TIMEOUT_MS`
 * (a 503 while loading is asked again: `openai/chat-client.ts`); cancel ends it at once.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ModelLoadState } from '../endpoints/model-loading.js';
import type { Notify, UserNotice } from './notify.js';
import type { UpdateSink } from '../tools/index.js';

/**
 * How long the first byte may take before the server is asked whether it is loading the model, in ms.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const LOADING_LOOK_MS = 2000;

/** What the watch needs. */
export interface LoadingWatchInput {
  /** The model as the user named it, for the words. */
  model: string;
  /** Asks the server (`Endpoint.loadState`). */
  look: (signal: AbortSignal) => Promise<ModelLoadState | undefined>;
  notify: Notify;
  /** The turn's signal: a cancel stops the watch. */
  signal: AbortSignal;
  /** @defaultValue {@link LOADING_LOOK_MS} */
  afterMs?: number | undefined;
}

/** One turn's watch. */
export interface LoadingWatch {
  /** Wraps the turn's sender: the first update of an answer (its text, reasoning, a tool call, its usage) ends the watch. */
  watched(send: UpdateSink, turnId: string): UpdateSink;
  /** Ends the watch (the turn ended). */
  stop(): void;
  /** What the server said when it was told to be loading the model; `undefined` when it was not. */
  readonly said: string | undefined;
}

/**
 * The notice for a model the server is loading: "Loading qwen3:8b on the server…", with what it said.
 * @internal the tests look for these exact words in what is sent.
 */
export function loadingNotice(model: string, state: ModelLoadState): UserNotice {
  const title = `Loading ${model} on the server…`;
  return {
    severity: 'info',
    title,
    description:
      `The server is loading the model into memory (${state.said}); the answer starts once it is loaded. ` +
      'A large model can take a minute or more on a laptop.',
    fallback: { text: `${title}\n\n` },
  };
}

/** Whether `update` is part of a model's answer in the turn `turnId` (its message ids start with the turn's). */
function isAnswer(update: SessionUpdate, turnId: string): boolean {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return update.messageId?.startsWith(`${turnId}-`) === true;
    case 'tool_call':
    case 'usage_update':
      return true;
    default:
      return false;
  }
}

/** Starts the watch of one turn (see the module comment). */
export function watchLoading(input: LoadingWatchInput): LoadingWatch {
  const stopped = new AbortController();
  let said: string | undefined;
  const stop = () => {
    clearTimeout(timer);
    stopped.abort();
    input.signal.removeEventListener('abort', stop);
  };
  const timer = setTimeout(async () => {
    const state = await input.look(stopped.signal);
    if (stopped.signal.aborted || !state || state.loaded) return stop();
    stop();
    said = state.said;
    await input.notify(loadingNotice(input.model, state)).catch(() => undefined);
  }, input.afterMs ?? LOADING_LOOK_MS);
  timer.unref?.();
  if (input.signal.aborted) stop();
  else input.signal.addEventListener('abort', stop, { once: true });
  return {
    watched: (send, turnId) => (updates) => {
      if (!stopped.signal.aborted && updates.some((update) => isAnswer(update, turnId))) stop();
      return send(updates);
    },
    stop,
    get said() {
      return said;
    },
  };
}
