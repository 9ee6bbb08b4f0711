/**
 * The agent loop's input, in the few parts it is made of, each handed only to what reads it: the
 * session's conversation (`ContextSources`, read by the context keeper), the endpoint and model
 * ({@link TurnEndpoint}: the fitted request and the model request), the tools ({@link TurnTools}:
 * the steps and the tool-call runner), the limits ({@link TurnLimits}) and the callbacks
 * ({@link TurnCallbacks}: where notices, logs and costs go). The turn itself ({@link LoopTurn}: its
 * cancel, its update sink, its id and its steering inbox) is the loop's first argument.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { ContextSources } from '../context/context-keeper.js';
import type { ToolMessageRules } from '../context/tool-messages.js';
import type { LearnedFacts } from '../endpoints/learned-facts.js';
import type { Logger } from '../shared/log.js';
import type { TurnInbox } from '../sessions/turn-inbox.js';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { ToolCallResult } from '../openai/chat-stream-accumulator.js';
import type { OfferedTools, ReadCall, SessionMode } from '../tools/index.js';
import type { CostMeter } from './cost-meter.js';
import type { Notify } from './notify.js';
import type { PromptTurn } from './prompt-turn.js';

/**
 * What the agent loop takes of the {@link PromptTurn}: its cancel (aborts the request under way and
 * every tool call), its one update sink, its id (the message ids of each step's text and reasoning
 * derive from it, `stepMessageIds`) and the messages the user sends into it while it runs
 * (`_session/steering`, open for the loop's whole run; absent: none, as for /compact).
 */
export type LoopTurn = Pick<PromptTurn, 'signal' | 'send' | 'turnId'> & { readonly inbox?: TurnInbox | undefined };

/** The endpoint and model of a turn. */
export interface TurnEndpoint {
  /** The chat client of the endpoint: streams each model request. */
  chat: ChatCompletionsClient;
  /** The request's model and parameters; its messages are planned before each request. */
  request: Omit<ChatRequest, 'messages'>;
  /** How this endpoint wants tool-call messages sent back (its profile's {@link ToolMessageRules}). */
  toolMessageRules: ToolMessageRules;
  /** True when the model is known to take images: images returned by tools are then sent to it. */
  takesImages: boolean;
  /** The server's chat template for the model (`serverChatTemplate`): the reader of calls written as text tries its family first. */
  template?: string | undefined;
  /** What the agent learned of this endpoint: the text paths and the windows of its models (`Endpoint.learned`). @defaultValue one for this turn only */
  learned?: Pick<LearnedFacts, 'textPaths' | 'windows'> | undefined;
}

/**
 * A tool call of the answer: streamed, or read from its text (`textCallReader` of `tools/`). A call
 * read from text may carry what the runner needs to refuse it rightly: `cut` (the text ended inside
 * it), `refusal` (why it cannot run as written) and `hint` (how to write it, ending a refusal).
 */
export type AnswerToolCall = ToolCallResult & Omit<ReadCall, 'name' | 'arguments'>;

/**
 * Tool calls written as text by local models: `screen()` starts the streaming screen of one answer
 * (each piece of text in, what may be shown out: prose shows as it arrives, text from where a call
 * may begin is kept back); at the end `read(text)` gives the calls written in the whole text and the
 * prose before them. Text kept back that has no call is shown after all; what follows a call is not.
 */
export interface TextToolCalls {
  screen(): { push(piece: string): string; readonly shownLength: number };
  /** `reasoning`: the text is the answer's reasoning, where only a format's markers make a call. */
  read(text: string, reasoning?: boolean): { calls: AnswerToolCall[]; prose: string };
}

/** What running the calls of one session needs, besides the turn's callbacks. */
export interface ToolCallSession {
  sessionId: string;
  /** Where permission questions go: the editor connection that sent the prompt. */
  editor: AgentContext;
  /** The session's mode when a call runs. */
  readonly mode: SessionMode;
  /** Remembered `allow_always` / `reject_always` choices by permission key. */
  remembered: Readonly<Record<string, 'allow' | 'reject'>>;
  /** Keeps a remembered choice (in the session, saved with it). */
  remember: (key: string, choice: 'allow' | 'reject') => Promise<void>;
}

/** The tools of a turn. */
export interface TurnTools {
  /** The tools offered, asked before each request (so MCP tools that became ready or changed join). */
  offer: () => OfferedTools;
  /** What running a call needs of the session. */
  session: ToolCallSession;
  /** Tool-call ids already used in the session's history (calls get ids unique among these). @defaultValue none */
  takenIds?: Set<string> | undefined;
  /** True for a request answered in text (a summary): the tools are offered so the prompt keeps its prefix, and calls in the answer are not run. @defaultValue false */
  answerOnly?: boolean | undefined;
}

/** The turn's limits. */
interface TurnLimits {
  /** Most model requests in the turn. */
  maxSteps: number;
}

/** Where the turn reports besides its updates (the turn's `send`). */
export interface TurnCallbacks {
  logger: Logger;
  /** Tells the user what is not part of the answer (`notify.ts`). */
  notify?: Notify | undefined;
  /** The session's cost meter (`cost-meter.ts`). */
  cost?: CostMeter | undefined;
  /** True when the client advertised `session.compaction`: a compaction is told as `compaction_update`s. */
  compactionUpdates?: boolean | undefined;
}

/** What the tool-call runner takes of the turn: its cancel and update sink, and the log. */
export type ToolCallTurn = Pick<LoopTurn, 'signal' | 'send'> & Pick<TurnCallbacks, 'logger'>;

/** What one turn of the agent loop is given. */
export interface AgentLoopInput {
  /** What the requests are made of (system prompt, history, the user's prompt) and the window. */
  context: ContextSources;
  endpoint: TurnEndpoint;
  /** Absent: no tools. */
  tools?: TurnTools | undefined;
  limits: TurnLimits;
  callbacks: TurnCallbacks;
}
