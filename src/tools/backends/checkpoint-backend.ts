/**
 * A {@link ToolBackend} that keeps checkpoints for `/undo`: before the turn's first write to a
 * file, the file's text (or that it did not exist) goes to a {@link CheckpointSink}; after each
 * write, the text written; each command run is noted. Writes still go where the wrapped
 * backend sends them (the client's `fs/write_text_file` when advertised).
 */
import { ToolError } from '../tool.js';
import type { ToolBackend } from './tool-backend.js';

/** Where the checkpoints go (the session layer's recorder). */
export interface CheckpointSink {
  has(path: string): boolean;
  /** @returns words for the user when the earlier text could not be kept. */
  keep(path: string, before: string | null | { notKept: string }): string | undefined;
  wrote(path: string, content: string): void;
  ranCommand(command: string): void;
}

/**
 * The earlier state of a file: its text, `null` when it does not exist, or why it cannot be kept.
 * A missing file is known without asking the client when the backend can tell.
 * @throws the signal's reason when aborted.
 */
export async function readBefore(backend: ToolBackend, path: string, signal: AbortSignal): Promise<string | null | { notKept: string }> {
  if ((await backend.fileExists?.(path, signal)) === false) return null;
  try {
    return await backend.readTextFile(path, signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ToolError && error.code === 'not_found') return null;
    const reason =
      error instanceof ToolError && error.code === 'binary'
        ? 'not a text file'
        : error instanceof ToolError && error.code === 'too_large'
          ? 'too large to read'
          : 'unreadable';
    return { notKept: `${reason}, so /undo cannot restore it` };
  }
}

/**
 * Wraps `backend`. The text a tool read just before writing the same file (edit_file,
 * write_file's diff), or the "not found" it got, is taken as the earlier state instead of asking
 * twice; any other operation in between forgets it.
 * @param notify - receives the words for the user when a file's earlier text cannot be kept.
 */
export function checkpointingBackend(backend: ToolBackend, sink: CheckpointSink, notify: (path: string, words: string) => Promise<void>): ToolBackend {
  // `text: null`: the read just said the file does not exist.
  let lastRead: { path: string; text: string | null } | undefined;
  const wrapped: ToolBackend = {
    where: backend.where,
    async readTextFile(path, signal) {
      lastRead = undefined;
      try {
        const text = await backend.readTextFile(path, signal);
        lastRead = { path, text };
        return text;
      } catch (error) {
        if (error instanceof ToolError && error.code === 'not_found') lastRead = { path, text: null };
        throw error;
      }
    },
    async writeTextFile(path, content, signal) {
      const justRead = lastRead?.path === path ? lastRead.text : undefined;
      lastRead = undefined;
      if (!sink.has(path)) {
        // Known missing wins over a text read earlier: someone may have removed the file since.
        const exists = await backend.fileExists?.(path, signal);
        const before = exists === false ? null : justRead !== undefined ? justRead : await readBefore(backend, path, signal);
        const words = sink.keep(path, before);
        // The notice is for the user; a connection going away must not fail the write.
        if (words) await notify(path, words).catch(() => undefined);
      }
      await backend.writeTextFile(path, content, signal);
      sink.wrote(path, content);
    },
    async runCommand(command, options) {
      lastRead = undefined;
      sink.ranCommand(command);
      return backend.runCommand(command, options);
    },
  };
  if (backend.fileExists) wrapped.fileExists = backend.fileExists.bind(backend);
  if (backend.deleteFile) wrapped.deleteFile = backend.deleteFile.bind(backend);
  return wrapped;
}
