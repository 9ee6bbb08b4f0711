/**
 * The agent's default system prompt: who it is, where it works, and how to use its tools, short
 * enough for small local models, followed by the project's instruction files (`AGENTS.md`…, read
 * by `instructions.ts`). `OPENAI_SYSTEM_PROMPT` replaces all of it.
 */

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
  /** The instruction files' part (`renderInstructions`), when there are any. */
  instructions?: string | undefined;
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
  return facts.instructions?.trim() ? `${prompt}\n\n${facts.instructions.trim()}` : prompt;
}
