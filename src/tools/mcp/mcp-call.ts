/**
 * One tool call of a running MCP server: its time limit, the server's questions during it routed
 * to the caller (and only then: a question while none of its calls runs is declined), a question
 * the editor could not ask stopping the call, and every failure turned into a result the model
 * reads (`isError: true`, plain words). The servers' lifecycle is `mcp-servers.ts`.
 */
import type { Logger } from '../../shared/log.js';
import type { McpConnection } from './mcp-connection.js';
import { callFailureText, plainMessage } from './mcp-messages.js';
import { mcpErrorResult, toMcpCallResult, type McpCallResult } from './mcp-result.js';
import { DECLINE, type McpElicit, type McpElicitAnswer, type McpElicitParams } from './mcp-elicitation.js';

/** A tool call running on a server: who asks the user its questions, until when. */
export interface RunningCall {
  elicit: McpElicit | undefined;
  signal: AbortSignal;
}

/** What a call needs of one server's entry (`mcp-servers.ts`). */
export interface CallableServer {
  readonly name: string;
  readonly status: { readonly state: string; readonly reason?: string | undefined };
  readonly connection?: McpConnection | undefined;
  /** The call of this server running now; set by {@link callServerTool} while it runs. */
  active?: RunningCall | undefined;
}

/** Options of {@link callServerTool}. */
export interface CallOptions {
  /** Aborts the call; the call then rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** Asks the user a question of the server (ACP `elicitation/create`); absent: questions are declined. */
  elicit?: McpElicit | undefined;
  /** The limit of the call, ms. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * Calls `server`'s tool `tool` with `args`. Resolves with an error result for a server that is
 * not running, a timeout, a closed connection, an output-schema mismatch, a question the editor
 * could not ask (the call is stopped with that reason) or any other failure. Rejects only when
 * `signal` aborts, with its reason.
 */
export async function callServerTool(
  server: CallableServer,
  tool: string,
  args: Record<string, unknown>,
  { signal, elicit, timeoutMs, logger }: CallOptions,
): Promise<McpCallResult> {
  const connection = server.connection;
  if (server.status.state !== 'ready' || connection === undefined) {
    return mcpErrorResult(
      `MCP server "${server.name}" is not running${server.status.reason ? ` (${server.status.reason})` : ''}; its tool "${tool}" cannot be called.`,
    );
  }
  // Ends with the call: a question still open then is withdrawn.
  const over = new AbortController();
  const callSignal = signal ? AbortSignal.any([signal, over.signal]) : over.signal;
  let asking: string | undefined;
  const ask: McpElicit | undefined =
    elicit &&
    (async (params, questionSignal) => {
      try {
        return await elicit(params, questionSignal);
      } catch (error) {
        // The editor could not ask (an error answer): the call stops with that reason.
        if (!questionSignal.aborted) {
          asking = plainMessage(error);
          over.abort(new Error(asking));
        }
        throw error;
      }
    });
  const previous = server.active;
  server.active = { elicit: ask, signal: callSignal };
  try {
    return toMcpCallResult(await connection.callTool(tool, args, { signal: callSignal, timeoutMs }));
  } catch (error) {
    signal?.throwIfAborted();
    if (asking !== undefined)
      return mcpErrorResult(
        `MCP server "${server.name}" asked the user a question during its tool "${tool}", and the editor could not ask it: ${asking}. The call was stopped.`,
      );
    logger.debug(`MCP tool call failed`, { server: server.name, tool, error: plainMessage(error) });
    return mcpErrorResult(callFailureText(error, { server: server.name, tool, timeoutMs }));
  } finally {
    server.active = previous;
    over.abort(new Error('the tool call ended'));
  }
}

/**
 * A server's question: asked through the running call's `elicit`, until the call ends; declined
 * when no call of this server runs or its caller cannot ask.
 */
export async function elicitThroughCall(server: CallableServer, params: McpElicitParams, signal: AbortSignal, logger: Logger): Promise<McpElicitAnswer> {
  const active = server.active;
  if (!active?.elicit) {
    logger.info(`MCP server "${server.name}" asked for input ${active ? 'but the editor cannot ask' : 'while none of its tool calls runs'}; declined`, {
      server: server.name,
    });
    return DECLINE;
  }
  return active.elicit(params, AbortSignal.any([signal, active.signal]));
}
