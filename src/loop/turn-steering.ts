/**
 * The agent loop's hook for ACP's steering extension (`_session/steering`): the messages a user
 * sends into the running turn reach the model before its next request, as user messages after
 * the latest step, spelled as every later request repeats them (`pushSteering`). The inbox
 * itself, what it answers and what the turn keeps, is `sessions/turn-inbox.ts`.
 */
import type { ChatMessage } from '../openai/openai-types.js';
import { promptToUserContent } from '../context/prompt-content.js';
import { pushSteering } from '../sessions/conversation.js';
import type { TurnInbox } from '../sessions/turn-inbox.js';

/**
 * Moves the messages waiting in `inbox` into `step` (the latest step's request messages), after
 * the turn's first `answers` model answers. Nothing happens without an inbox or a step (before the
 * first answer the messages wait: the request being made already carries the prompt).
 */
export function steerInto(inbox: TurnInbox | undefined, answers: number, step: ChatMessage[] | undefined): void {
  if (!inbox || !step) return;
  for (const prompt of inbox.take(answers)) pushSteering(step, promptToUserContent(prompt));
}
