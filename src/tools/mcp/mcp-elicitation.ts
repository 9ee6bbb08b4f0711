/**
 * Questions from MCP servers: an MCP server may ask its client for input while it runs a tool
 * (`elicitation/create`); the agent passes the question to the user through the ACP client's own
 * `elicitation/create`, tied to the session and the tool call, and the answer back.
 *
 * Sources: MCP elicitation, https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * (params `{mode?: "form", message, requestedSchema}` or `{mode: "url", message, elicitationId, url}`;
 * result `{action: "accept", content?} | {action: "decline"} | {action: "cancel"}`); ACP
 * `CreateElicitationRequest` (schema v1: `{sessionId, toolCallId?, mode: "form", message,
 * requestedSchema}` or `{…, mode: "url", elicitationId, url}`, only in a mode the client
 * advertised under `clientCapabilities.elicitation`).
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import { isRecord } from '../../shared/json-value.js';
import type { Logger } from '../../shared/log.js';
import { raceAbort } from '../backends/client-backend.js';

/** An MCP `elicitation/create`'s params (plain data from the MCP chunk). */
export type McpElicitParams =
  | { mode?: 'form' | undefined; message: string; requestedSchema: Record<string, unknown> }
  | { mode: 'url'; message: string; elicitationId: string; url: string };

/** The answer that goes back to the MCP server. */
export type McpElicitAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/**
 * Asks the user one question of a server, until `signal` aborts (the turn cancelled, or the tool
 * call over). Rejects when the client cannot ask (an error answer) or the signal aborts.
 */
export type McpElicit = (params: McpElicitParams, signal: AbortSignal) => Promise<McpElicitAnswer>;

/** The elicitation modes a client advertised (`elicitation.form`, `elicitation.url`). */
export interface ElicitationModes {
  form: boolean;
  url: boolean;
}

/** Declined when nobody can ask the user. */
export const DECLINE: McpElicitAnswer = { action: 'decline' };

/**
 * The {@link McpElicit} of one tool call: the question as an ACP `elicitation/create` to `client`
 * for `sessionId` and `toolCallId`, in a mode the client advertised (else declined, with a debug
 * line); the user's `accept` (with its content), `decline` or `cancel` is given back as is. The
 * signal's abort cancels the ACP request (`$/cancel_request`) and rejects at once.
 */
export function acpElicitation(input: {
  client: AgentContext;
  sessionId: string;
  toolCallId: string;
  modes: ElicitationModes;
  logger?: Logger | undefined;
}): McpElicit {
  const { client, sessionId, toolCallId, modes } = input;
  return async (params, signal) => {
    const url = params.mode === 'url';
    if (url ? !modes.url : !modes.form) {
      input.logger?.debug('an MCP server asked for input in a mode the client does not offer; declined', { mode: url ? 'url' : 'form' });
      return DECLINE;
    }
    const request =
      params.mode === 'url'
        ? { sessionId, toolCallId, mode: 'url' as const, message: params.message, elicitationId: params.elicitationId, url: params.url }
        : { sessionId, toolCallId, mode: 'form' as const, message: params.message, requestedSchema: params.requestedSchema };
    const answer = (await raceAbort(client.request('elicitation/create', request as never, { cancellationSignal: signal }), signal)) as {
      action?: unknown;
      content?: unknown;
    };
    if (answer?.action === 'accept') {
      const content = answer.content;
      return isRecord(content) ? { action: 'accept', content } : { action: 'accept' };
    }
    if (answer?.action === 'cancel') return { action: 'cancel' };
    return DECLINE;
  };
}
