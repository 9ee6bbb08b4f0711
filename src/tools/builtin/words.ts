/** Parameter descriptions several built-in tools share (the same words cost the model nothing new to learn). */

/** The `path` of a file tool. */
export const PATH_DESCRIPTION = 'File path, absolute or relative to the working directory.';
