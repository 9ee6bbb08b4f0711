/**
 * The agent's default system prompt: who it is, where it works, and how to use its tools, short
 * enough for small local models, followed by the project's `AGENTS.md` when the cwd has one
 * (the convention of https://agents.md). `OPENAI_SYSTEM_PROMPT` replaces all of it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Most bytes of `AGENTS.md` included (the rest is cut with a note). */
export const AGENTS_MD_MAX_BYTES = 32 * 1024;

/** What the prompt says about the session. */
export interface SystemPromptFacts {
  /** The session's working directory (absolute). */
  cwd: string;
  /** e.g. `linux`, `darwin`, `win32`. */
  platform: string;
  /** Today's date, `YYYY-MM-DD`. */
  date: string;
  /** The tools offered (names); empty when tools are off or the mode allows none. */
  tools: readonly string[];
  /** The session mode's name, e.g. `ask`. */
  mode: string;
  /** The text of the project's `AGENTS.md`, when there is one. */
  agentsMd?: string | undefined;
}

/** The default system prompt. Pure. */
export function defaultSystemPrompt(facts: SystemPromptFacts): string {
  const lines = [
    'You are openai-acp, a coding agent working in the user\'s project through their editor.',
    `Working directory: ${facts.cwd}. Platform: ${facts.platform}. Today: ${facts.date}.`,
  ];
  if (facts.tools.length > 0) {
    lines.push(
      `Tools: ${facts.tools.join(', ')}. Use them to look before you answer: read files instead of guessing, search to find code, and run commands to check your work.`,
      'Paths may be relative to the working directory. Edit with edit_file (exact old_string, enough context to be unique) rather than rewriting whole files. Keep commands non-interactive.',
      facts.mode === 'read-only'
        ? 'This session is read-only: you cannot edit files or run commands; say what you would change.'
        : facts.mode === 'plan'
          ? 'Plan mode: no edits or commands yet. Explore, then write your plan with update_plan; the user is asked to approve it.'
          : 'Edits and commands may need the user\'s approval; if one is declined, do not retry it, continue or ask.',
      ...(facts.tools.includes('update_plan') && facts.mode !== 'plan' ? ['For work of several steps, keep a to-do list with update_plan.'] : []),
      'When you are done, answer briefly with what you did and what the user should know.',
    );
  } else {
    lines.push('You have no tools in this session: answer from the conversation.');
  }
  const prompt = lines.join('\n');
  return facts.agentsMd?.trim() ? `${prompt}\n\nProject instructions (AGENTS.md):\n${facts.agentsMd.trim()}` : prompt;
}

/** The text of `<cwd>/AGENTS.md` (at most {@link AGENTS_MD_MAX_BYTES}), or `undefined` when absent or unreadable. Never rejects. */
export async function readAgentsMd(cwd: string): Promise<string | undefined> {
  try {
    const bytes = await readFile(join(cwd, 'AGENTS.md'));
    if (bytes.length <= AGENTS_MD_MAX_BYTES) return bytes.toString('utf8');
    // Move the cut back off UTF-8 continuation bytes, so no character is split (it would decode as U+FFFD).
    let cut = AGENTS_MD_MAX_BYTES;
    while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
    return `${bytes.subarray(0, cut).toString('utf8')}\n[AGENTS.md cut at ${AGENTS_MD_MAX_BYTES / 1024} KiB]`;
  } catch {
    return undefined;
  }
}
