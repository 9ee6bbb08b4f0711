/**
 * A finished tool call as the fields of its final `tool_call_update` (pure), the counterpart of
 * `presentToolCall` (its announcement). `loop/tool-call-runner.ts` adds
 * `sessionUpdate: 'tool_call_update'` and sends it, for built-in and MCP tools alike.
 * Source: https://agentclientprotocol.com/protocol/v1/tool-calls#updating
 */
import type { ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ToolOutcome } from './tool-types.js';

/**
 * `{toolCallId, status, content, locations?, rawOutput?}`: `failed` or `completed`, the client's
 * (uncapped) content; locations and rawOutput only when the outcome has them. Images are for the
 * model only and are left out.
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
