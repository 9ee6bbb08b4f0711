/** Parameter descriptions several built-in tools share (the same words cost the model nothing new to learn). */

/** The `path` of a file tool. */
export const PATH_DESCRIPTION = 'File path, absolute or relative to the working directory.';

/**
 * Other names models give a file tool's `path`: Claude Code's `file_path` (its Read, Write and
 * Edit tools), `filepath`/`filePath` (opencode), `file`, `filename`. Spellings in another case,
 * camelCase or kebab-case are read as well (`tools/calls/check-arguments.ts`).
 */
export const PATH_ALIASES = { file_path: 'path', filepath: 'path', file: 'path', filename: 'path' } as const;

/** Other names of a directory `path`: `dir`, `directory`, `dir_path`. */
export const DIRECTORY_ALIASES = { dir: 'path', directory: 'path', dir_path: 'path' } as const;
