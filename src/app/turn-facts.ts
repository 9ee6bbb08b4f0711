/**
 * The prompt facts of one turn (`context/prompt-facts.ts`): the system prompt is built from the
 * facts the conversation began with (read afresh for its first turn, and after /clear, /compact or
 * /init), and what changed since the model was last told (an instruction file edited, created or
 * deleted, a new day) goes in a note in front of the prompt. Many edits between two turns make one
 * note: the files are compared only when a turn starts.
 */
import { instructionBudgetBytes, loadInstructions } from '../context/instructions.js';
import { dateOf, factsNote, type PromptFacts } from '../context/prompt-facts.js';
import type { ConversationRecord } from '../sessions/conversation.js';
import { systemFacts, toldFacts } from '../sessions/told-facts.js';

/** What a turn's facts come from. */
export interface TurnFactsInput {
  /** The session's live records. */
  records: readonly ConversationRecord[];
  /** The system prompt's facts before them (`live-records.ts` `factsBeforeOf`). */
  before?: PromptFacts | undefined;
  /** The session's working directory and `additionalDirectories` (absolute). */
  cwd: string;
  extra?: readonly string[] | undefined;
  /** The agent's config directory (its user-wide AGENTS.md). */
  configDir?: string | undefined;
  /** The server's workspace root (`serve --root`): instruction files are read only inside it. */
  root?: string | undefined;
  /** The context window in tokens, if known: sizes the instruction files' share when they are read afresh. */
  contextWindow: number | undefined;
  now: Date;
}

/** A turn's facts. */
export interface TurnFacts {
  /** The facts its system prompt says. */
  system: PromptFacts;
  /** What changed since the model was last told, for the front of the prompt. */
  note?: string;
  /** The facts to save with the turn (`TurnRecord.facts`): when read afresh, or told by `note`. */
  save?: PromptFacts;
}

/** Reads the instruction files and the date, and compares them with what the records say the model knows. Never rejects. */
export async function turnFacts(input: TurnFactsInput): Promise<TurnFacts> {
  const system = systemFacts(input.records, input.before);
  const budget = system?.budget ?? instructionBudgetBytes(input.contextWindow);
  const now: PromptFacts = {
    date: dateOf(input.now),
    budget,
    instructions: await loadInstructions({ cwd: input.cwd, extra: input.extra, configDir: input.configDir, maxBytes: budget, root: input.root }),
  };
  if (!system) return { system: now, save: now };
  const note = factsNote(toldFacts(input.records, input.before) ?? system, now);
  return note ? { system, note, save: now } : { system };
}
