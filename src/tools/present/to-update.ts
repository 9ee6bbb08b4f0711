/**
 * One tool call as the `session/update`s the client is sent, pure: its announcement
 * (`tool_call`, pending), `in_progress` (with a client terminal embedded once it exists), and the
 * final `tool_call_update` (`completed` or `failed`). The same for built-in, MCP and plan calls;
 * `loop/tool-call-runner.ts` sends them.
 * Source: https://agentclientprotocol.com/protocol/v1/tool-calls (creating, updating).
 */
import type { SessionUpdate, ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ToolOutcome, ToolPresentation } from '../tool.js';

/** The `tool_call` announcement. */
export type ToolCallAnnouncement = SessionUpdate & { sessionUpdate: 'tool_call' };

/**
 * `{sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', rawInput, locations?, content?}`:
 * the presentation's locations and preview content only when it has them.
 * @param rawInput - the checked arguments, or the raw text when they did not check.
 */
export function announceUpdate(toolCallId: string, presentation: ToolPresentation, rawInput: unknown): ToolCallAnnouncement {
  const announce: ToolCallAnnouncement = {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: presentation.title,
    kind: presentation.kind,
    status: 'pending',
    rawInput,
  };
  if (presentation.locations) announce.locations = presentation.locations;
  if (presentation.content) announce.content = presentation.content;
  return announce;
}

/** `in_progress`, with the client terminal the call runs in when there is one. */
export function progressUpdate(toolCallId: string, terminalId?: string): SessionUpdate {
  return terminalId === undefined
    ? { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' }
    : { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] };
}

/** The final `tool_call_update` as a session update (see {@link outcomeToUpdate}). */
export function finalUpdate(toolCallId: string, outcome: ToolOutcome): SessionUpdate {
  return { sessionUpdate: 'tool_call_update', ...outcomeToUpdate(toolCallId, outcome) };
}

/**
 * `{toolCallId, status, content, locations?, rawOutput?}`: `failed` or `completed`, the client's
 * (uncapped) content; locations and rawOutput only when the outcome has them. Images are for the
 * model only and are left out.
 * @internal the update's fields are checked without a session.
 */
export function outcomeToUpdate(toolCallId: string, outcome: ToolOutcome): ToolCallUpdate {
  return {
    toolCallId,
    status: outcome.failed ? 'failed' : 'completed',
    content: outcome.content,
    ...(outcome.locations ? { locations: outcome.locations } : {}),
    ...(outcome.rawOutput ? { rawOutput: outcome.rawOutput } : {}),
  };
}
