/**
 * Session records: the types of the lines of a session file. Checking a line read back is
 * `parse-record.ts`; reading a whole file's text into a {@link StoredSession} or a
 * {@link SessionSummary} is `session-text.ts`; the file format itself is described in
 * `session-store.ts`.
 */
import type { ContentBlock, PlanEntry } from '@agentclientprotocol/sdk/unstable';
import type { TurnCheckpoint } from './checkpoints.js';
import type { StubRanges } from '../context/stub-ranges.js';
import type { PromptFacts } from '../context/prompt-facts.js';

/** A prompt turn: completed, cancelled or failed (then with what it showed, maybe nothing). */
export interface TurnRecord {
  type: 'turn';
  /** When the turn ended, ISO 8601. */
  at: string;
  /** The turn's id: the ACP message ids the client saw derive from it, so a replay shows the same ones. */
  id?: string;
  /** The ACP prompt blocks as received. */
  prompt: ContentBlock[];
  /**
   * The prompt as the user sent it, when `prompt` is what it stood for (a command file, an MCP
   * prompt, `/init`, expanded): shown on `session/load` and used for the title.
   */
  typed?: ContentBlock[];
  /** The assistant's text ('' when none). */
  assistant: string;
  /** The reasoning text ('' when none). */
  reasoning: string;
  /** The ACP stop reason the turn ended with (`end_turn`, `cancelled`, …). */
  stopReason: string;
  /**
   * Set when the turn failed (answered with a JSON-RPC error, `app/prompt-failure.ts`): the kind
   * of failure (`http`, `connection`, `timeout`, `stream`, `config`, …) and the endpoint's HTTP status when it
   * answered one. Its prompt is the user's and is replayed (with what the turn showed, maybe
   * nothing); with no answer and no message sent into the turn, it is not sent to the model again
   * (`conversation.ts` `appendTurn`): a prompt the endpoint refused would fail every later one.
   */
  failed?: { kind: string; status?: number };
  /** Token counts of the turn, and its cost when the provider reported one (ACP `Cost`). */
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cost?: { amount: number; currency: string } };
  /** Compactions made inside the turn (told to clients as `compaction_update`): id, the steps before it, summary. */
  compactions?: { id: string; beforeStep: number; summary: string }[];
  /**
   * The answers of this turn that called tools, in order, each with the results of its calls;
   * `assistant` and `reasoning` are then the last answer's (the one that called no tool).
   */
  steps?: StepRecord[];
  /**
   * What the model was sent of the history when the turn ended, so the next turn starts from it
   * (the record itself keeps everything, for `session/load`): `summary` replaces everything
   * before this turn and its first `summarizedSteps` steps (a compaction inside the turn);
   * `stubbed`: the tool results sent as stubs, as `[from, to)` ranges of their indexes over the
   * live conversation's tool results, oldest first (`context/stub-ranges.ts`; older files hold a
   * count `n`, the first `n`).
   */
  context?: { summary?: string; summarizedSteps?: number; stubbed?: number | StubRanges };
  /** The plan as the turn left it, when the model wrote one in it (the whole list). */
  plan?: PlanEntry[];
  /** What `/undo` needs: the files the turn changed and the commands it ran. */
  checkpoint?: TurnCheckpoint;
  /**
   * The session mode's rule, told to the model in front of this turn's prompt (in its user
   * message) because the mode changed since the model was last told; absent when unchanged.
   */
  modeNote?: string;
  /** The session mode the model had been told of when the turn ended (e.g. `plan`, `ask`). */
  mode?: string;
  /**
   * The date and instruction files as read for this turn (`context/prompt-facts.ts`), saved when
   * the turn read them afresh (its system prompt is built from them, as every later turn's until
   * the next /clear, /compact or /init) or when its `factsNote` told the model they changed.
   */
  facts?: PromptFacts;
  /** What changed since the model was last told, put in front of this turn's prompt (in its user message). */
  factsNote?: string;
  /** Set on an `/init` turn: the next turn reads the facts afresh, so its system prompt has the AGENTS.md just written. */
  renewFacts?: true;
  /** Messages the user sent into the turn while it ran (`_session/steering`), in the order they came. */
  steering?: SteeringRecord[];
}

/**
 * One message the user sent into a running turn (ACP's steering extension, `_session/steering`).
 * It came after the turn's first `afterStep` model answers (its tool steps, then its final answer)
 * and went into the request that followed them; one that no answer of the turn followed (the turn
 * was cancelled or failed first) is put in front of the next prompt, as an unanswered prompt is.
 */
export interface SteeringRecord {
  /** When it came, ISO 8601. */
  at: string;
  /** The model answers of the turn before it (1 or more for one given to the model). */
  afterStep: number;
  /** The ACP content blocks as sent. */
  prompt: ContentBlock[];
}

/** One model answer that called tools, and what each call gave back. */
export interface StepRecord {
  /** The answer's text ('' when none). */
  text: string;
  /** The answer's reasoning ('' when none). */
  reasoning: string;
  /** The calls as the model made them: `id` is the `tool_call_id` the model sees. */
  toolCalls: { id: string; name: string; arguments: string; extra?: Record<string, unknown> }[];
  /** One result per call, in the same order. */
  results: ToolResultRecord[];
}

/** What one tool call gave back, for the model (`forModel`) and for a replay to the client. */
export interface ToolResultRecord {
  /** The model-facing `tool_call_id` (the call's `id`). */
  id: string;
  /** The ACP `toolCallId` the client saw. */
  toolCallId: string;
  title: string;
  /** ACP `ToolKind`. */
  kind: string;
  status: 'completed' | 'failed';
  rawInput?: unknown;
  /** ACP `ToolCallContent[]` as shown (terminals replaced by their output text). */
  content: unknown[];
  locations?: unknown[];
  /** The `tool` message content the model was sent. */
  forModel: string;
}

/** Session metadata change: title, model, other config options (merged over earlier meta records). */
export interface MetaRecord {
  type: 'meta';
  at: string;
  title?: string;
  model?: string;
  /** Config option values by option id; merged key by key over earlier ones. */
  options?: Record<string, string>;
}

/** `/clear`: turns before this are kept in the file but no longer sent to the model. */
export interface ClearRecord {
  type: 'clear';
  at: string;
  /** Its id, for the message ids of a replay. */
  id?: string;
}

/** `/compact`: a model-written summary that replaces every earlier turn in what is sent. */
export interface CompactRecord {
  type: 'compact';
  at: string;
  /** Its id: the `compactionId` and message ids the client saw derive from it. */
  id?: string;
  summary: string;
}

/** `/undo`: the latest turn before this record (not undone already) is no longer part of the conversation. */
export interface UndoRecord {
  type: 'undo';
  at: string;
}

/**
 * One MCP tool as it was offered to the model (the `McpToolDescriptor` of `tools/mcp/mcp-tools.ts`,
 * the same fields): the request's `tools` entry is built from `name`, `description` and `parameters`.
 */
export interface SavedMcpTool {
  /** Model-facing function name (`<server>__<tool>`, made valid and unique). */
  name: string;
  /** The server's name from `mcpServers`. */
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  /** The JSON Schema of the arguments as the model was sent it. */
  parameters: { type: 'object'; properties: Record<string, unknown>; required: string[]; [keyword: string]: unknown };
  readOnly: boolean;
  /** ACP `ToolKind` of its `tool_call`. */
  kind: 'read' | 'edit' | 'fetch' | 'other';
  /** ACP `tool_call` title. */
  title: string;
}

/**
 * The MCP tools offered to the model, in their order, written when the list offered differs from
 * the one saved last: a restart offers them again before the servers are ready, so the first
 * request's `tools` has the bytes of the last one before it (and a server's prefix cache holds).
 */
export interface McpToolsRecord {
  type: 'mcp_tools';
  at: string;
  tools: SavedMcpTool[];
}

/** One line of a session file after the header. */
export type SessionRecord = TurnRecord | MetaRecord | ClearRecord | CompactRecord | UndoRecord | McpToolsRecord;

/** A session as loaded: the header, the meta records merged, and the history. */
export interface StoredSession {
  sessionId: string;
  cwd: string;
  createdAt: string;
  /** `at` of the last record in file order, or `createdAt` when there is none. */
  updatedAt: string;
  /** The latest meta `title`. */
  title?: string;
  /** The latest meta `model`. */
  model?: string;
  /** Every meta `options`, later keys over earlier ones. */
  options: Record<string, string>;
  /** The tools of the latest `mcp_tools` record; absent when none was saved. */
  mcpTools?: SavedMcpTool[];
  /** turn, clear and compact records in file order */
  records: Array<TurnRecord | ClearRecord | CompactRecord>;
}

/** What `session/list` shows of a session. */
export interface SessionSummary {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
}
