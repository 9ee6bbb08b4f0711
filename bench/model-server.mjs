// A loopback stand-in of a Chat Completions server for the benchmarks: every GET is the model
// list (one model, `bench`), every POST's JSON body goes to the benchmark's `answer`, which
// streams its reply on `res`. Loopback only, port 0.
import http from 'node:http';

/** One SSE event of `message`. */
export const sse = (message) => `data: ${JSON.stringify(message)}\n\n`;

/**
 * Starts the server.
 * @param {(body: any, res: http.ServerResponse) => void} answer - called once a POST's body is read
 * @returns {Promise<{ server: http.Server, base: string }>} the server and its `/v1` base URL
 */
export function startModelServer(answer) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
        return;
      }
      answer(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), res);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${server.address().port}/v1` })));
}
