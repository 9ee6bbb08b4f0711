/**
 * Checkpoints: what a turn's file changes need for `/undo`. Before a turn's first change to a
 * file, its text is kept (or the fact that it did not exist); after each write, a hash of what
 * the turn left, so `/undo` can tell a file someone changed since. Saved in the turn's record,
 * so they survive a restart, are copied by a fork and removed with the session.
 *
 * Sizes are bounded: a file over {@link CHECKPOINT_FILE_MAX_BYTES}, or past
 * {@link CHECKPOINT_TURN_MAX_BYTES} for the turn, is not kept (its entry says how large it
 * was, and the user is told at once that `/undo` cannot restore it).
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../shared/json-value.js';

/**
 * Most bytes of one file's earlier text kept: 1 MiB.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const CHECKPOINT_FILE_MAX_BYTES = 1024 * 1024;
/**
 * Most bytes of earlier texts kept for one turn: 4 MiB.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const CHECKPOINT_TURN_MAX_BYTES = 4 * 1024 * 1024;

/** One file a turn changed. */
export interface CheckpointFile {
  /** Absolute path. */
  path: string;
  /** The text before the turn's first change; `null` when the turn created the file. Absent when not kept (see `notKept`). */
  before?: string | null;
  /** Why the earlier text was not kept (too large, not text), in words for the user. */
  notKept?: string;
  /** SHA-256 (hex) of the text the turn left in the file. */
  after: string;
}

/** What `/undo` needs of one turn. */
export interface TurnCheckpoint {
  /** The files the turn changed, in the order of their first change. */
  files: CheckpointFile[];
  /** The command lines the turn ran (their effects cannot be undone). */
  commands?: string[];
}

/** SHA-256 of a text (UTF-8), hex. */
export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Collects one turn's checkpoint. */
export class CheckpointRecorder {
  private readonly files = new Map<string, CheckpointFile>();
  private readonly commands: string[] = [];
  private keptBytes = 0;

  /** Whether the file's earlier state is already kept in this turn. */
  has(path: string): boolean {
    return this.files.has(path);
  }

  /**
   * Keeps a file's earlier state before the turn's first change to it: its text, `null` when it
   * did not exist, or a reason why it cannot be kept (then `before` is left out).
   * @returns the words to tell the user when the text could not be kept; otherwise undefined.
   */
  keep(path: string, before: string | null | { notKept: string }): string | undefined {
    if (this.files.has(path)) return undefined;
    if (before !== null && typeof before === 'object') {
      this.files.set(path, { path, notKept: before.notKept, after: '' });
      return before.notKept;
    }
    const bytes = before === null ? 0 : Buffer.byteLength(before, 'utf8');
    if (bytes > CHECKPOINT_FILE_MAX_BYTES || this.keptBytes + bytes > CHECKPOINT_TURN_MAX_BYTES) {
      const limit =
        bytes > CHECKPOINT_FILE_MAX_BYTES
          ? `the limit is ${CHECKPOINT_FILE_MAX_BYTES / 1024 / 1024} MiB a file`
          : `the turn's checkpoints reached ${CHECKPOINT_TURN_MAX_BYTES / 1024 / 1024} MiB`;
      const notKept = `too large to keep for /undo (${(bytes / 1024 / 1024).toFixed(1)} MiB; ${limit})`;
      this.files.set(path, { path, notKept, after: '' });
      return notKept;
    }
    this.keptBytes += bytes;
    this.files.set(path, { path, before, after: '' });
    return undefined;
  }

  /** Notes the text the turn just wrote to a kept file. */
  wrote(path: string, content: string): void {
    const file = this.files.get(path);
    if (file) file.after = hashText(content);
  }

  /** Notes a command the turn ran. */
  ranCommand(command: string): void {
    this.commands.push(command);
  }

  /** The turn's checkpoint; undefined when it changed no file and ran no command. */
  result(): TurnCheckpoint | undefined {
    // A file kept but never written (the write failed) was not changed by the turn.
    const files = [...this.files.values()].filter((file) => file.after !== '');
    if (files.length === 0 && this.commands.length === 0) return undefined;
    return this.commands.length > 0 ? { files, commands: [...this.commands] } : { files };
  }
}

/** Whether `value` is a stored {@link TurnCheckpoint} (session files are read back with it). */
export function isTurnCheckpoint(value: unknown): value is TurnCheckpoint {
  return (
    isRecord(value) &&
    Array.isArray(value.files) &&
    value.files.every(
      (f) =>
        isRecord(f) &&
        typeof f.path === 'string' &&
        typeof f.after === 'string' &&
        (f.before === undefined || f.before === null || typeof f.before === 'string') &&
        (f.notKept === undefined || typeof f.notKept === 'string') &&
        (f.before !== undefined || typeof f.notKept === 'string'),
    ) &&
    (value.commands === undefined || (Array.isArray(value.commands) && value.commands.every((c) => typeof c === 'string')))
  );
}
