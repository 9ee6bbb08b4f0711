/**
 * The SDK's `AcpServer` (Streamable HTTP and WebSocket), with what `openai-acp serve` adds around
 * each Streamable HTTP request: the connection named by `Acp-Connection-Id` must belong to the
 * client asking (`http-connections.ts`), a new connection is refused while the server is full, and
 * the client of a new connection gets its `acp-client` cookie. Everything else (routing, streams,
 * limits, the RFD's status codes) is the SDK's. Imported only by the lazy server chunk.
 */
import { AcpServer, type AcpServerOptions, type HandleRequestOptions } from '@agentclientprotocol/sdk/experimental/server';
import { clientCookie, clientIdOf, type HttpConnections, newClientId } from './http-connections.js';

/** The header naming a connection (ACP RFD "Streamable HTTP & WebSocket Transport", "Identity Model"). */
export const CONNECTION_HEADER = 'Acp-Connection-Id';

/** A plain-text answer, as the SDK gives its own refusals. */
export function textResponse(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': 'text/plain', ...headers } });
}

/** An `AcpServer` whose Streamable HTTP connections are each their client's. */
export class OwnedAcpServer extends AcpServer {
  /**
   * @param connections - the Streamable HTTP connections and their clients.
   * @param refuseNew - the answer to a request that would open a connection now (the server is
   *   full or stopping), or `undefined` to let it in.
   */
  constructor(
    options: AcpServerOptions,
    private readonly connections: HttpConnections,
    private readonly refuseNew: () => Response | undefined,
  ) {
    super(options);
  }

  /**
   * One Streamable HTTP request: a request naming a connection its client does not own is
   * answered as the SDK answers an unknown one (404, so it learns nothing of other clients); the
   * answer to a new connection's `initialize` carries the client's cookie.
   */
  override async handleRequest(req: Request, options?: HandleRequestOptions): Promise<Response> {
    const connectionId = req.headers.get(CONNECTION_HEADER);
    const clientId = clientIdOf(req.headers.get('cookie'));
    if (connectionId !== null) {
      if (!this.connections.owns(connectionId, clientId)) return textResponse('Unknown Acp-Connection-Id', 404);
    } else if (req.method === 'POST') {
      const refused = this.refuseNew();
      if (refused) {
        await req.body?.cancel().catch(() => undefined);
        return refused;
      }
    }
    const response = await super.handleRequest(req, options);
    const created = connectionId === null && req.method === 'POST' ? response.headers.get(CONNECTION_HEADER) : null;
    if (created) {
      const id = clientId ?? newClientId();
      this.connections.created(created, id, Date.now());
      if (clientId === undefined) response.headers.append('Set-Cookie', clientCookie(id));
    }
    if (connectionId !== null && req.method === 'DELETE') this.connections.forget(connectionId);
    return response;
  }

  /** Ends the Streamable HTTP connection `connectionId` (its client went away), as its own DELETE would. */
  async end(connectionId: string): Promise<void> {
    this.connections.forget(connectionId);
    await super.handleRequest(new Request('http://localhost/acp', { method: 'DELETE', headers: { [CONNECTION_HEADER]: connectionId } }));
  }
}
