/**
 * The agent's default system prompt: who it is, where it works, and how to use its tools, short
 * enough for small local models, followed by the project's instruction files (`AGENTS.md`…, read
 * by `instructions.ts`). `OPENAI_SYSTEM_PROMPT` replaces all of it.
 *
 * It stays the same bytes for a conversation's life, so every request of a session starts with
 * the same bytes and a server's prefix cache (llama.cpp, Ollama, vLLM, OpenAI) keeps its work: the
 * session mode is told in the conversation when it changes (`loop/session-modes.ts` `modeNote`),
 * and the date and instruction files are those the conversation began with, their changes told
 * in notes too (`prompt-facts.ts`).
 */

/** What the prompt says about the session. */
export interface SystemPromptFacts {
  /** The session's working directory (absolute). */
  cwd: string;
  /** e.g. `linux`, `darwin`, `win32`. */
  platform: string;
  /** Today's date, `YYYY-MM-DD`. */
  date: string;
  /** The tools offered (names, the same in every mode); empty when tools are off. */
  tools: readonly string[];
  /** The instruction files' part (`renderInstructions`), when there are any. */
  instructions?: string | undefined;
}

/** The default system prompt. Pure. */
export function defaultSystemPrompt(facts: SystemPromptFacts): string {
  const lines = [
    "You are openai-acp, a coding agent working in the user's project through their editor.",
    `Working directory: ${facts.cwd}. Platform: ${facts.platform}. Today: ${facts.date}.`,
  ];
  if (facts.tools.length > 0) {
    lines.push(
      `Tools: ${facts.tools.join(', ')}. Use them to look before you answer: read files instead of guessing, search ` +
        'to find code, and run commands to check your work.',
      'Paths may be relative to the working directory. Edit with edit_file (exact old_string, enough context to be ' +
        'unique) rather than rewriting whole files. Keep commands non-interactive.',
      "Edits and commands may need the user's approval, or the session mode may forbid them; if one is declined or refused, do not retry it, continue or ask.",
      ...(facts.tools.includes('update_plan') ? ['For work of several steps, keep a to-do list with update_plan.'] : []),
      'When you are done, answer briefly with what you did and what the user should know.',
    );
  } else {
    lines.push('You have no tools in this session: answer from the conversation.');
  }
  const prompt = lines.join('\n');
  return facts.instructions?.trim() ? `${prompt}\n\n${facts.instructions.trim()}` : prompt;
}
