// The two servers of the release check, both on 127.0.0.1 at a free port: an npm registry
// (verdaccio, with no uplink, so it never asks registry.npmjs.org anything and nothing published to
// it leaves this machine) and a model (a Chat Completions endpoint streaming one fixed answer).
import http from 'node:http';
import { join } from 'node:path';
import { runServer } from 'verdaccio';

/** The model's one answer, streamed in three deltas. */
export const MODEL_ANSWER = 'Hello from the registry install';

/** Listens on 127.0.0.1 at a free port; resolves `http://127.0.0.1:PORT`. */
function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

/** Closes `server`, dropping its open connections. */
function close(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/**
 * An npm registry in `dir` (storage and password file): anyone may read, only its one user may
 * publish. Resolves `{ url, addUser(name, password), close() }`; `addUser` resolves the user's token.
 */
export async function startLoopbackRegistry(dir) {
  const server = await runServer({
    self_path: join(dir, 'config.yaml'),
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' } },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
  });
  const url = await listen(server);
  return {
    url,
    async addUser(name, password) {
      const answer = await fetch(`${url}/-/user/org.couchdb.user:${name}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password, type: 'user', roles: [], date: new Date().toISOString() }),
      });
      const body = await answer.json();
      if (!answer.ok || typeof body.token !== 'string')
        throw new Error(`the loopback registry refused the user: HTTP ${answer.status} ${JSON.stringify(body)}`);
      return body.token;
    },
    close: () => close(server),
  };
}

/** One `chat.completion.chunk` as a server-sent event. */
function event(delta, finish = null, usage = undefined) {
  const chunk = {
    id: 'chatcmpl-release',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'release-check',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(usage ? { ...chunk, usage } : chunk)}\n\n`;
}

/**
 * A model endpoint: `GET /v1/models` lists `release-check`, `POST /v1/chat/completions` streams
 * {@link MODEL_ANSWER}; anything else is 404. Resolves `{ baseUrl, requests, close() }`, `requests`
 * counting the chat requests.
 */
export async function startMockModel() {
  const seen = { requests: 0 };
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'release-check', object: 'model' }] }));
      } else if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        seen.requests++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const [first, second, third] = MODEL_ANSWER.match(/^(\S+ \S+)( \S+ \S+)( .*)$/).slice(1);
        res.write(event({ role: 'assistant', content: first }));
        res.write(event({ content: second }));
        res.write(event({ content: third }, 'stop'));
        res.end(`${event({}, null, { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 })}data: [DONE]\n\n`);
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    });
  });
  const url = await listen(server);
  return {
    baseUrl: `${url}/v1`,
    get requests() {
      return seen.requests;
    },
    close: () => close(server),
  };
}
