/**
 * What the default system prompt says that can change while a session is open: today's date and
 * the instruction files (`instructions.ts`). A server's prefix cache (llama.cpp, Ollama, LM
 * Studio, vLLM, OpenAI) reuses only the bytes a request shares with the one before from its
 * start, so the system prompt is built from the facts taken when the conversation began and kept
 * with it (`TurnRecord.facts`); a later change is told to the model as a short note in front of
 * the next prompt, like a mode change (`loop/session-modes.ts`). Pure.
 */
import type { InstructionFile } from './instructions.js';
import { isRecord } from '../shared/json-value.js';

/** The facts of one reading. */
export interface PromptFacts {
  /** Today's date when read, `YYYY-MM-DD` (UTC). */
  date: string;
  /**
   * Bytes the instruction files could take when the conversation began (`instructionBudgetBytes`);
   * later readings use the same bytes, so a file that did not change reads the same.
   */
  budget: number;
  /** The instruction files as read, most general first. */
  instructions: InstructionFile[];
}

/** Today's date as the prompt says it. */
export function dateOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

const isFile = (value: unknown): value is InstructionFile =>
  isRecord(value) &&
  typeof value.path === 'string' &&
  typeof value.label === 'string' &&
  typeof value.text === 'string' &&
  Array.isArray(value.notes) &&
  value.notes.every((note) => typeof note === 'string');

/** Whether `value` (read from a session file) is {@link PromptFacts}. */
export function isPromptFacts(value: unknown): value is PromptFacts {
  return (
    isRecord(value) &&
    typeof value.date === 'string' &&
    typeof value.budget === 'number' &&
    Number.isFinite(value.budget) &&
    Array.isArray(value.instructions) &&
    value.instructions.every(isFile)
  );
}

const sameFile = (a: InstructionFile, b: InstructionFile) =>
  a.text === b.text && a.notes.length === b.notes.length && a.notes.every((n, i) => n === b.notes[i]);

/** One changed file in the note: its text and notes under its name, or one line when it has no text. */
function fileLines(file: InstructionFile, change: 'edited' | 'new'): string {
  const text = file.text.trim();
  if (!text) return `## ${file.label} (${change}): ${file.notes.length > 0 ? file.notes.join('; ') : 'now empty'}`;
  return [`## ${file.label} (${change})`, text, ...file.notes.map((note) => `[${file.label}: ${note}]`)].join('\n');
}

/**
 * The note telling the model what changed between the facts it was told (`told`) and `now`: the
 * instruction files edited, created or deleted (each changed file's text as it reads now, within
 * the instruction budget, or one line when it is left out), and a new date. `undefined` when
 * nothing changed.
 */
export function factsNote(told: PromptFacts, now: PromptFacts): string | undefined {
  const before = new Map(told.instructions.map((file) => [file.path, file]));
  const after = new Set(now.instructions.map((file) => file.path));
  const changed: string[] = [];
  for (const file of now.instructions) {
    const was = before.get(file.path);
    if (!was) {
      if (file.text.trim() || file.notes.length > 0) changed.push(fileLines(file, 'new'));
    } else if (!sameFile(was, file)) changed.push(fileLines(file, 'edited'));
  }
  for (const file of told.instructions)
    if (!after.has(file.path) && (file.text.trim() || file.notes.length > 0)) changed.push(`## ${file.label} (deleted): its instructions no longer apply.`);
  const parts: string[] = [];
  if (changed.length > 0)
    parts.push(
      '[Instruction files changed during this conversation; follow them as they read now ' +
        `(the later, nearer file wins where they differ):]\n\n${changed.join('\n\n')}`,
    );
  if (now.date !== told.date) parts.push(`[Today is ${now.date}.]`);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}
