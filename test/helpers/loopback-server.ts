/**
 * The chat-client tests' view of the fake OpenAI server: a fresh loopback server per test (so a
 * fresh URL, since the client remembers per-URL facts), answered by the test's own handler.
 */
import type http from 'node:http';
import { afterEach } from 'vitest';
import { startFakeOpenAI, type RecordedRequest } from './fake-openai.js';

/** Answers one request; `body` is the parsed JSON body, `n` the 0-based request number. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: any, n: number) => void;

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT/v1/chat/completions`. */
  url: string;
  requests: RecordedRequest[];
  /** Destroys open connections and stops listening. */
  close(): Promise<void>;
}

/** Start a server whose chat requests `handler` answers. */
export async function serve(handler: Handler): Promise<LoopbackServer> {
  const fake = await startFakeOpenAI((req, res, body) => handler(req, res, body, fake.requests.length - 1));
  return { url: `${fake.baseUrl}/chat/completions`, requests: fake.requests, close: fake.close };
}

/**
 * {@link serve} for a test file: every server started through the returned function is closed
 * after each test (registers a vitest `afterEach`; call once, at the top of the file).
 */
export function servePerTest(): (handler: Handler) => Promise<LoopbackServer> {
  const servers: LoopbackServer[] = [];
  afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
  return async (handler) => {
    const server = await serve(handler);
    servers.push(server);
    return server;
  };
}
