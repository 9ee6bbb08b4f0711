/**
 * Compaction, pure parts: the request that asks the model to summarise earlier turns and steps
 * (as a rule the session's own request with the instruction as its last user message: see
 * `context-keeper.ts`; when that does not fit, the work written out as one transcript in a single
 * user message, cut to fit the window, so no chat template sees tool calls without tools), the
 * summary made without the model when that request fails, and the one line that tells the user.
 * The model's summary then follows the system message as the answer to the request for it
 * ({@link summaryMessages}), before the task, which is always sent verbatim.
 * Source of the approach: codex `codex-rs/core` compaction (history replaced by a summary, the
 * user's words kept verbatim); opencode `session/compaction.ts` (a summary when pruning is not enough).
 */
import type { ChatMessage } from '../openai/openai-types.js';
import { cutText, plainNote } from './context-cut.js';
import { calibrationFactor, estimateMessageTokens, estimateTextTokens, promptBudget, REPLY_PRIMING_TOKENS, type Calibration } from './token-estimate.js';
import { grouped } from '../shared/grouped.js';

/** The instruction that asks for a summary (`/compact`, and compaction inside a turn). */
export const COMPACT_INSTRUCTION =
  'Summarize our conversation so far for your own future reference. Keep every fact, decision, name, number, ' +
  'file path and open question that later turns may need; drop pleasantries. Write the summary only, in the ' +
  'language of the conversation.';

/** Added to {@link COMPACT_INSTRUCTION} when the summary replaces steps of the current task. */
export const STEPS_INSTRUCTION =
  'The summary replaces the steps taken so far on the current task: say what was done, what was found (file ' +
  'paths, line numbers, facts), and what remains to do. Be brief.';

/** The text of a message's content (text parts joined; images named). */
function contentText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
}

/** One message as a transcript line: `User: …`, `Assistant: …`, `Called read_file {…}`, `Result: …`. */
function transcriptLine(message: ChatMessage): string {
  if (message.role === 'user') return `User: ${contentText(message)}`;
  if (message.role === 'tool') return `Result: ${message.content}`;
  if (message.role === 'system') return `System: ${message.content}`;
  const calls = (message.tool_calls ?? []).map((call) => `Called ${call.function.name} ${call.function.arguments}`);
  return [message.content ? `Assistant: ${message.content}` : '', ...calls].filter(Boolean).join('\n');
}

/** What a compaction summarises. */
export interface CompactionSource {
  /** The system prompt (sent with the request, so the summary is written by the same agent). */
  system?: string | undefined;
  /** The summary of what came before `turns`, if any. */
  summary?: string | undefined;
  /** Earlier turns. */
  turns: ReadonlyArray<ReadonlyArray<ChatMessage>>;
  /** The task of the current turn (named in the transcript, not summarised away: it stays verbatim). */
  task: ChatMessage;
  /** The steps of this turn to summarise (all but the current one). */
  steps: ReadonlyArray<ReadonlyArray<ChatMessage>>;
  contextWindow: number;
  maxTokens?: number | undefined;
  calibration?: Calibration | undefined;
}

/**
 * The messages of the summary request: the system prompt, then one user message with the
 * transcript (earlier summary, turns, the task, the steps; the middle cut when it is over the
 * budget) and the instruction.
 */
export function compactionMessages(source: CompactionSource): ChatMessage[] {
  const system: ChatMessage | undefined = source.system ? { role: 'system', content: source.system } : undefined;
  const instruction = source.steps.length > 0 ? `${COMPACT_INSTRUCTION} ${STEPS_INSTRUCTION}` : COMPACT_INSTRUCTION;
  const parts = [
    source.summary ? `Summary of the earlier conversation:\n${source.summary}` : '',
    ...source.turns.flat().map(transcriptLine),
    source.steps.length > 0 ? `The current task:\n${contentText(source.task)}\n\nSteps taken so far:` : '',
    ...source.steps.flat().map(transcriptLine),
  ].filter(Boolean);
  const frame = (transcript: string): ChatMessage => ({ role: 'user', content: `${transcript}\n\n---\n${instruction}` });
  const budget = Math.floor(promptBudget(source.contextWindow, source.maxTokens) / calibrationFactor(source.calibration));
  const room = budget - REPLY_PRIMING_TOKENS - (system ? estimateMessageTokens(system) : 0) - estimateMessageTokens(frame(''));
  return [...(system ? [system] : []), frame(cutText(parts.join('\n\n'), Math.max(0, room), plainNote))];
}

/**
 * The summary as the conversation carries it after a compaction: the request for it (the user's
 * {@link COMPACT_INSTRUCTION}) and the model's answer, right after the system message. The system
 * message and the tools stay byte-identical, so a server's prefix cache still holds them and
 * reads only the summary and what follows; the pair keeps user and assistant alternating for
 * templates that require it (Gemma's).
 */
export function summaryMessages(summary: string): ChatMessage[] {
  return [
    { role: 'user', content: COMPACT_INSTRUCTION },
    { role: 'assistant', content: summary },
  ];
}

/**
 * A summary written without the model, when the summary request failed: the calls made, in
 * order, with their results left out (each can be repeated), after the earlier summary if any.
 */
export function stepsDigest(
  summary: string | undefined,
  turns: ReadonlyArray<ReadonlyArray<ChatMessage>>,
  steps: ReadonlyArray<ReadonlyArray<ChatMessage>>,
): string {
  const calls = [...turns, ...steps]
    .flat()
    .flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((call) => `- ${call.function.name} ${call.function.arguments.slice(0, 200)}`) : []));
  const said = turns
    .flat()
    .filter((m) => m.role === 'user')
    .map((m) => `- ${contentText(m).slice(0, 200)}`);
  return [
    summary,
    said.length > 0 ? `Earlier requests of the user:\n${said.join('\n')}` : '',
    calls.length > 0
      ? `Tool calls made so far (their results were left out to fit the context window; repeat a call if you need its result):\n${calls.join('\n')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * What the model answered to a summary request: its text, and how many tool calls it made
 * (structured, or written as text: the caller reads those, `tools/calls/text/`).
 */
export interface SummaryAnswer {
  text: string;
  toolCalls: number;
  /** True when the answer stopped at its token cap (`finish_reason: length`): the summary is incomplete. */
  cut?: boolean | undefined;
}

/** Why a summary answer is not taken: it says nothing, it is a tool call (small models answer so), or it is over its room. */
export type SummaryRefusal = 'empty' | 'a tool call' | 'too long';

/**
 * Why the model's summary cannot replace the earlier work, or `undefined` when it can: an
 * answer that is empty, a tool call (structured, or written as text), longer than `room`
 * tokens (the summary's share of the window) or stopped at its token cap (incomplete) is
 * refused, and the caller lists the calls made instead ({@link stepsDigest}). Pure.
 */
export function refuseSummary(answer: SummaryAnswer, room: number): SummaryRefusal | undefined {
  const text = answer.text.trim();
  if (answer.toolCalls > 0) return 'a tool call';
  if (!text) return 'empty';
  return answer.cut || estimateTextTokens(text) > room ? 'too long' : undefined;
}

/** What a compaction replaced, for the one line the user sees. */
export interface CompactionReport {
  turns: number;
  steps: number;
  contextWindow: number;
  /** True when the model wrote the summary; false for {@link stepsDigest}. */
  byModel: boolean;
  /** Why the model's answer was not taken, when it answered but was refused. */
  refused?: SummaryRefusal | undefined;
}

/** The line the user sees: `Context compacted: 2 earlier turns and 9 steps summarised to fit the model's context window (8,000 tokens).` */
export function compactionNotice({ turns, steps, contextWindow, byModel, refused }: CompactionReport): string {
  const what =
    [
      turns > 0 ? `${grouped(turns)} earlier ${turns === 1 ? 'turn' : 'turns'}` : '',
      steps > 0 ? `${grouped(steps)} ${steps === 1 ? 'step' : 'steps'} of this turn` : '',
    ]
      .filter(Boolean)
      .join(' and ') || 'the earlier summary';
  const why = refused ? ` (the model's summary was ${refused === 'empty' ? 'empty' : refused === 'too long' ? 'too long' : 'a tool call'})` : '';
  return (
    `Context compacted: ${what} ${byModel ? 'summarised' : 'replaced by a list of the calls made'} to fit ` +
    `the model's context window (${grouped(contextWindow)} tokens)${why}.`
  );
}

/**
 * The line the user sees when earlier turns or steps were left out without a summary, e.g. "3
 * earlier turns were left out to fit the model's context window (128,000 tokens)."; '' for none.
 */
export function trimmingNotice(droppedTurns: number, contextWindow: number, droppedSteps = 0): string {
  if (!(droppedTurns > 0) && !(droppedSteps > 0)) return '';
  const what = [
    droppedTurns > 0 ? (droppedTurns === 1 ? '1 earlier turn' : `${grouped(droppedTurns)} earlier turns`) : '',
    droppedSteps > 0 ? `${grouped(droppedSteps)} earlier ${droppedSteps === 1 ? 'step' : 'steps'} of this turn` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const were = droppedTurns + droppedSteps === 1 ? 'was' : 'were';
  return `${what} ${were} left out to fit the model's context window (${grouped(contextWindow)} tokens).`;
}
