/**
 * A Streamable HTTP POST to `/acp`, read here rather than by the SDK's Node adapter: its body is
 * read as it arrives, each chunk's nesting depth checked at once (`json-depth.ts`), so a message
 * nested too deep is refused at its first bracket past the limit, and the rest of it is dropped as
 * it comes, never held, decoded or parsed (the adapter would read it all, decode it to one string,
 * and `AcpServer` encode it back before the check: a second of one thread for 15 MiB on a busy
 * machine, every other client waiting). A body past the size limit is answered 413 as the adapter
 * does. What passes goes to `AcpServer` as a web `Request`; its answer (never a stream: POST
 * answers are JSON or empty) is written back. Imported only by the network server's lazy chunk.
 *
 * Source: `@agentclientprotocol/sdk` 2.x `dist/transports/node-adapter.js` and `node-body.js`
 * (what the adapter does that this keeps: the 413 and its text, headers copied as given, the
 * request's signal aborted when the client goes away before the answer).
 */
import type http from 'node:http';
import { DepthScanner, MAX_JSON_DEPTH, tooDeepError } from './json-depth.js';
import type { OwnedAcpServer } from './owned-acp-server.js';

/** What reading a POST body came to. */
type PostBody =
  | { kind: 'read'; bytes: Buffer }
  /** Longer than the limit (by its `Content-Length` or as it came): answer 413. */
  | { kind: 'too-large' }
  /** Nested past the limit: answer -32600; the rest is being dropped. */
  | { kind: 'too-deep' }
  /** The client went away before the end. */
  | { kind: 'gone' };

/** Reads `req`'s body, up to `maxBytes` bytes, its depth checked chunk by chunk (at most `maxDepth` levels). */
function readPostBody(req: http.IncomingMessage, maxBytes: number, maxDepth?: number): Promise<PostBody> {
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) {
    req.resume();
    return Promise.resolve({ kind: 'too-large' });
  }
  const scanner = new DepthScanner(maxDepth);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: PostBody) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      // What else comes is read and dropped (Node would stop reading the socket otherwise).
      if (outcome.kind !== 'read') req.on('data', () => undefined).on('error', () => undefined);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return finish({ kind: 'too-large' });
      if (scanner.push(chunk)) return finish({ kind: 'too-deep' });
      chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: 'read', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received) });
    const onGone = () => finish({ kind: 'gone' });
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}

/** The request's headers as a web `Headers` (repeated ones appended), as the SDK's adapter copies them. */
function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** A signal aborted when the client goes away before `res` is finished (the request's `signal`). */
function abortedWhenGone(res: http.ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('Node HTTP response closed'));
  });
  return controller.signal;
}

/** Writes a finite web `Response` (status, headers, every `Set-Cookie`, body) to `res`. */
async function writeResponse(res: http.ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (res.headersSent || res.destroyed) return;
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
  res.end(body);
}

/**
 * Answers a POST to `/acp`: its body read and checked ({@link readPostBody}; a refusal told to
 * `refused` for the log), then `acp`'s answer; 500 with the error's words if that throws, as the
 * SDK's adapter does.
 */
export async function answerPost(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  acp: Pick<OwnedAcpServer, 'handleReadBody'>,
  maxBytes: number,
  refused: (reason: string) => void,
): Promise<void> {
  const body = await readPostBody(req, maxBytes, MAX_JSON_DEPTH);
  if (body.kind === 'gone') return;
  // The rest of a refused body is still read (and dropped), so a client still sending it reads the answer.
  if (body.kind === 'too-large') {
    refused(`refused a body over ${maxBytes} bytes`);
    res.writeHead(413, { 'Content-Type': 'text/plain' }).end(`Request body exceeds ${maxBytes} bytes`);
    return;
  }
  if (body.kind === 'too-deep') {
    refused(`refused a message nested deeper than ${MAX_JSON_DEPTH} levels`);
    res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify(tooDeepError()));
    return;
  }
  try {
    await writeResponse(res, await acp.handleReadBody(body.bytes, headersOf(req), abortedWhenGone(res)));
  } catch (error) {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(error instanceof Error ? error.message : 'Internal Server Error');
  }
}
