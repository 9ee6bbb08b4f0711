/**
 * A loopback `node:http` server posing as Bedrock that checks every request's SigV4 signature by
 * recomputing it with the same SDK (`SignatureV4`, the same static credentials, the date of the
 * request's `x-amz-date`) from what it received: method, path, query, the signed headers and the
 * body bytes. Chat requests get a short stream, `GET …/models` a one-model list.
 */
import http from 'node:http';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { listenLoopback } from './listen-loopback.js';

/** Static test credentials (never real). */
export const TEST_AWS = { accessKeyId: 'AKIDTESTEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'test-session-token' };

/** One request as received, and whether its signature verified. */
interface SignedRecord {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The `Credential=` scope: access key id, date, region, service. */
  scope: { accessKeyId: string; region: string; service: string } | undefined;
  /** True when the recomputed `authorization` equals the received one. */
  verified: boolean;
}

export interface SigV4Server {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  records: SignedRecord[];
  close(): Promise<void>;
}

/** `20261123T110000Z` → Date. */
function amzDate(text: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return new Date(NaN);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
}

/** Recomputes the signature of a received request; `credentials` are what the client should have used. */
async function verifySignature(
  received: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string },
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
): Promise<{ verified: boolean; scope: SignedRecord['scope'] }> {
  const authorization = String(received.headers['authorization'] ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(authorization);
  if (!m) return { verified: false, scope: undefined };
  const [, accessKeyId = '', region = '', service = '', signedHeaders = ''] = m;
  const url = new URL(received.url, `http://${received.headers['host']}`);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const headers: Record<string, string> = {};
  // The payload hash header is left out: the signer hashes the received body itself, so a body
  // that differs from the one signed fails even when the client's header claims otherwise.
  for (const name of signedHeaders.split(';')) if (name !== 'x-amz-content-sha256') headers[name] = String(received.headers[name] ?? '');
  const request = new HttpRequest({
    method: received.method,
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query,
    headers,
    ...(received.body ? { body: received.body } : {}),
  });
  // The secret is the test's; the session token is whichever the client sent (it is signed too).
  const token = received.headers['x-amz-security-token'];
  const used = {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(typeof token === 'string' ? { sessionToken: token } : {}),
  };
  const signer = new SignatureV4({ credentials: used, region, service, sha256: Hash.bind(null, 'sha256') });
  const signed = await signer.sign(request, { signingDate: amzDate(String(received.headers['x-amz-date'] ?? '')) });
  const verified = signed.headers['authorization'] === authorization && accessKeyId === credentials.accessKeyId;
  return { verified, scope: { accessKeyId, region, service } };
}

const STREAM =
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'signed ok' }, finish_reason: null }] })}\n\n` +
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

/**
 * Starts the server. A request whose signature does not verify gets 403 with Bedrock's error
 * shape, so a client sees what a real endpoint would answer.
 */
export async function startSigV4Server(credentials = TEST_AWS): Promise<SigV4Server> {
  const records: SignedRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      void verifySignature(received, credentials).then(({ verified, scope }) => {
        records.push({ ...received, scope, verified });
        if (!verified) {
          res
            .writeHead(403, { 'content-type': 'application/json' })
            .end(JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }));
        } else if (req.method === 'GET' && req.url?.includes('/models')) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ object: 'list', data: [{ id: 'openai.gpt-oss-120b', object: 'model' }] }));
        } else {
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(STREAM);
        }
      });
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    records,
    close,
  };
}
