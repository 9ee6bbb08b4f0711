/**
 * The SDK client of one MCP server connection, over a transport `mcp-connect.lazy.ts` opened:
 * `initialize` with the capabilities declared (elicitation only when the editor can ask), every
 * page of tools and prompts listed and listed again on `list_changed`, a server's question
 * routed to the caller or declined, the output-schema validator built only when needed, and the
 * live connection with its shut-down. It imports the SDK: only the lazy chunk may import it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ensureExited } from './mcp-process.js';
import { listAllPrompts, listAllTools } from './mcp-lists.js';
import type { McpPromptInfo, McpPromptMessage } from './mcp-prompts.js';
import type { McpToolInfo } from './mcp-tools.js';
import type { McpElicitParams } from './mcp-elicitation.js';
import type { ConnectOptions, McpConnection, McpTransportKind } from './mcp-connection.js';

/**
 * The Client's output-schema validator: the SDK's default (`AjvJsonSchemaValidator`, one per
 * Client), created when the Client first asks for it (a listed tool with an `outputSchema`)
 * instead of in the Client's constructor. Building its Ajv instance (~4 ms) then stays off the
 * path to spawning the server, and out of it entirely when no tool has an output schema.
 */
function lazyOutputValidator(): jsonSchemaValidator {
  let validator: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (validator ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/** A started client and its live tool and prompt lists. */
export interface Started {
  client: Client;
  tools: () => McpToolInfo[];
  prompts: () => McpPromptInfo[];
}

/** One attempt: connect `transport` with a fresh client and list its tools and prompts. Throws what the SDK throws. */
export async function startClient(
  transport: Transport,
  kind: McpTransportKind,
  server: string,
  options: ConnectOptions,
  onSpawned?: () => void,
): Promise<Started> {
  const { logger, signal, timeoutMs } = options;
  let tools: McpToolInfo[] = [];
  let prompts: McpPromptInfo[] = [];
  const relistPrompts = (): void => {
    listAllPrompts(client, timeoutMs)
      .then((fresh) => {
        prompts = fresh;
        options.onToolsChanged?.();
      })
      .catch((error: unknown) => logger.warn(`MCP server "${server}": could not list its changed prompts`, { server, error: String(error) }));
  };
  // One re-list at a time; a change announced meanwhile triggers one more afterwards.
  let relisting = false;
  let again = false;
  const relist = (): void => {
    if (relisting) {
      again = true;
      return;
    }
    relisting = true;
    again = false;
    listAllTools(client, timeoutMs)
      .then((fresh) => {
        tools = fresh;
        logger.info(`MCP server "${server}" changed its tools`, { server, tools: fresh.length });
        options.onToolsChanged?.();
      })
      .catch((error: unknown) => logger.warn(`MCP server "${server}": could not list its changed tools`, { server, error: String(error) }))
      .finally(() => {
        relisting = false;
        if (again) relist();
      });
  };
  // autoRefresh is off because the SDK re-lists only the first page; we list every page.
  const modes = options.elicitation;
  const elicitation = modes?.form ? { form: {}, ...(modes.url ? { url: {} } : {}) } : undefined;
  const client: Client = new Client(options.clientInfo, {
    capabilities: elicitation ? { elicitation } : {},
    jsonSchemaValidator: lazyOutputValidator(),
    listChanged: {
      tools: { autoRefresh: false, debounceMs: 100, onChanged: relist },
      prompts: { autoRefresh: false, debounceMs: 100, onChanged: relistPrompts },
    },
  });
  // A server's question: to the user when declared (and asked in a declared mode), else declined
  // rather than answered "method not found". Through the fallback handler: the SDK's own schemas
  // are built lazily inside this chunk and cannot be imported here (scripts/lazy-schemas.mjs).
  client.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'elicitation/create') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as McpElicitParams;
    const url = params.mode === 'url';
    if (!elicitation || !options.onElicit || (url ? !modes?.url : params.mode !== undefined && params.mode !== 'form') || typeof params.message !== 'string')
      return { action: 'decline' };
    return options.onElicit(params, extra.signal);
  };
  const connecting = client.connect(transport, { signal, timeout: timeoutMs });
  // The SDK spawns synchronously inside connect(): the pid is known now, before any await.
  onSpawned?.();
  await connecting;
  // A server without the tools capability (prompts or resources only) is ready with no tools.
  if (client.getServerCapabilities()?.tools !== undefined) tools = await listAllTools(client, timeoutMs, signal);
  // Prompts become slash commands; a server that fails to list them still serves its tools.
  if (client.getServerCapabilities()?.prompts !== undefined) prompts = await listAllPrompts(client, timeoutMs, signal).catch(() => []);
  logger.debug(`MCP server "${server}" is ready`, { server, transport: kind, tools: tools.length, prompts: prompts.length });
  return { client, tools: () => tools, prompts: () => prompts };
}

/** A ready connection around a started client. */
export function liveConnection(started: Started, kind: McpTransportKind, pid: number | undefined, options: ConnectOptions): McpConnection {
  const { client } = started;
  let closing: Promise<void> | undefined;
  client.onclose = () => {
    if (closing === undefined) options.onClosed?.();
  };
  return {
    transport: kind,
    pid,
    tools: started.tools,
    callTool: (tool, args, { signal, timeoutMs }) => client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs }),
    prompts: started.prompts,
    getPrompt: async (name, args, { signal, timeoutMs }) =>
      (await client.getPrompt({ name, arguments: args }, { signal, timeout: timeoutMs })).messages as McpPromptMessage[],
    close: () => (closing ??= shutDown(client, pid)),
  };
}

/** Closes `client` (and so its transport); for a stdio server, also makes sure `pid` is gone. */
async function shutDown(client: Client, pid: number | undefined): Promise<void> {
  const closed = client.close().catch(() => undefined);
  if (pid === undefined) return closed;
  await ensureExited(pid);
  // After the process is gone the SDK's close resolves at once; the bound guards a stuck stream.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
}
