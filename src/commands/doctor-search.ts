/**
 * The search line of `openai-acp doctor`: which engine `search_files` runs, ripgrep (with its
 * version and path) or the built-in JavaScript search (and why, with the fix).
 */
import { findRipgrep } from '../tools/index.js';

/**
 * The line, e.g. `  search            ripgrep 14.1.1 (/usr/bin/rg)`. Never rejects.
 * @param setting - `OPENAI_ACP_RIPGREP` (unset: rg on the PATH).
 * @param envPath - the PATH to look on; default the process's.
 */
export async function searchLine(setting: string | undefined, envPath?: string): Promise<string> {
  const found = await findRipgrep(setting, envPath);
  const label = '  search            ';
  if (found.path !== undefined) return `${label}${found.version} (${found.path})`;
  const fix = /^off$/i.test(setting?.trim() ?? '') ? '' : '; install ripgrep (apt-get install ripgrep, brew install ripgrep) for faster search on big trees';
  return `${label}built-in JavaScript search (${found.why}${fix})`;
}
