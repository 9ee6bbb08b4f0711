/**
 * The SDK's `AcpServer` (Streamable HTTP and WebSocket), with what `openai-acp serve` adds around
 * each Streamable HTTP request: the connection named by `Acp-Connection-Id` must belong to the
 * client asking (`http-connections.ts`), a new connection is refused while the server is full, the
 * client of a new connection gets its `acp-client` cookie, and a client that names no connection
 * after `initialize` is told which client and transport to use (`misdirected-client.ts`). A POST's
 * body comes already read, its depth checked (`http-post.ts`). Everything else (routing, streams,
 * limits, the RFD's status codes) is the SDK's. Imported only by the network server's lazy chunk.
 */
import { AcpServer, type AcpServerOptions, type HandleRequestOptions } from '@agentclientprotocol/sdk/experimental/server';
import { CONNECTION_HEADER, clientCookie, clientIdOf, type HttpConnections, newClientId } from './http-connections.js';
import { MISSING_CONNECTION_TEXT, misdirectedResponse, requestIdOf } from './misdirected-client.js';

export { CONNECTION_HEADER } from './http-connections.js';

/**
 * The header the network server puts on each request it hands over, naming the client's address
 * (any such header a client sent is dropped first): a web `Request` carries no socket.
 */
export const ADDRESS_HEADER = 'x-openai-acp-client-address';

/** A plain-text answer, as the SDK gives its own refusals. */
export function textResponse(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': 'text/plain', ...headers } });
}

/** An `AcpServer` whose Streamable HTTP connections are each their client's. */
export class OwnedAcpServer extends AcpServer {
  /**
   * @param connections - the Streamable HTTP connections and their clients.
   * @param refuseNew - the answer to a request from `address` that would open a connection now
   *   (the server, or that address, is full, or it is stopping), or `undefined` to let it in.
   */
  constructor(
    options: AcpServerOptions,
    private readonly connections: HttpConnections,
    private readonly refuseNew: (address: string) => Response | undefined,
  ) {
    super(options);
  }

  /**
   * One Streamable HTTP request: a request naming a connection its client does not own is
   * answered as the SDK answers an unknown one (404, so it learns nothing of other clients); the
   * answer to a new connection's `initialize` carries the client's cookie.
   */
  override handleRequest(req: Request, options?: HandleRequestOptions): Promise<Response> {
    return this.handle(req, options, () => null);
  }

  /** A POST whose body (`bytes`) was read and its depth checked by the caller; `signal` aborts when the client goes away. */
  handleReadBody(bytes: Uint8Array, headers: Headers, signal: AbortSignal): Promise<Response> {
    const req = new Request('http://localhost/acp', { method: 'POST', headers, body: bytes, signal });
    return this.handle(req, undefined, () => requestIdOf(bytes));
  }

  private async handle(req: Request, options: HandleRequestOptions | undefined, idOf: () => string | number | null): Promise<Response> {
    const connectionId = req.headers.get(CONNECTION_HEADER);
    const clientId = clientIdOf(req.headers.get('cookie'));
    const address = req.headers.get(ADDRESS_HEADER) ?? 'unknown';
    if (connectionId !== null) {
      if (!this.connections.owns(connectionId, clientId)) return textResponse('Unknown Acp-Connection-Id', 404);
      if (req.method === 'POST') this.connections.messaged(connectionId, Date.now());
    } else if (req.method === 'POST') {
      const refused = this.refuseNew(address);
      if (refused) {
        await req.body?.cancel().catch(() => undefined);
        return refused;
      }
    }
    const response = await super.handleRequest(req, options);
    if (connectionId === null && response.status === 400 && (await response.clone().text()) === MISSING_CONNECTION_TEXT)
      return misdirectedResponse('no-connection', idOf());
    const created = connectionId === null && req.method === 'POST' ? response.headers.get(CONNECTION_HEADER) : null;
    if (created) {
      const id = clientId ?? newClientId();
      this.connections.created(created, id, Date.now(), address);
      if (clientId === undefined) response.headers.append('Set-Cookie', clientCookie(id));
    }
    if (connectionId !== null && req.method === 'DELETE') this.connections.forget(connectionId);
    return response;
  }

  /** Ends the Streamable HTTP connection `connectionId` (its client went away or stayed idle), as its own DELETE would. */
  async end(connectionId: string): Promise<void> {
    this.connections.forget(connectionId);
    await super.handleRequest(new Request('http://localhost/acp', { method: 'DELETE', headers: { [CONNECTION_HEADER]: connectionId } }));
  }
}
