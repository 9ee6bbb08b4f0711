/**
 * A {@link ToolBackend} over a Map of path → text, for tests of checkpoints and /undo: reads and
 * writes logged, `fileExists` known (or unknown with `stat: false`), binary files refused.
 */
import { ToolError } from '../../src/tools/tool.js';
import type { ToolBackend } from '../../src/tools/backends/tool-backend.js';

export function memoryBackend(files: Record<string, string>, options: { stat?: boolean; binary?: string[] } = {}) {
  const log: string[] = [];
  const backend: ToolBackend = {
    where: { read: 'client', write: 'client', terminal: 'local' },
    async readTextFile(path) {
      log.push(`read ${path}`);
      if (options.binary?.includes(path)) throw new ToolError(`${path} is binary`, 'binary');
      if (!(path in files)) throw new ToolError(`not found: ${path}`, 'not_found');
      return files[path]!;
    },
    async writeTextFile(path, content) {
      log.push(`write ${path}`);
      files[path] = content;
    },
    async runCommand(command) {
      log.push(`run ${command}`);
      return { output: '', truncated: false, exitCode: 0, signal: null, timedOut: false, release: async () => undefined };
    },
    async deleteFile(path) {
      log.push(`delete ${path}`);
      delete files[path];
    },
  };
  if (options.stat !== false) backend.fileExists = async (path) => path in files;
  return { backend, files, log };
}
