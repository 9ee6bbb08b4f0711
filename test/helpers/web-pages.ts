/**
 * A loopback web server for the `fetch_url` tests (unit and end to end): an HTML page with page
 * chrome, JSON, a large text, a redirect chain, a 404, a page that never answers, a redirect to
 * the cloud metadata address, an image, and a gzip-compressed page. Every request is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** The HTML page served at `/page`. */
const PAGE_HTML =
  '<!doctype html><html><head><title>Doc</title><style>body{}</style><script>var tracking = 1;</script></head><body>' +
  '<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>' +
  '<main><h1>Install</h1><p>Run <code>npm install</code>, then read <a href="/docs/next">the next page</a>.</p></main>' +
  '<footer>© Example Corp</footer></body></html>';

/** A running web server. */
export interface WebPages {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Paths asked, in order. */
  paths: string[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, port 0. `bigBytes` sets the size of `/big`. */
export async function startWebPages(bigBytes = 200_000): Promise<WebPages> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    paths.push(path);
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    switch (path) {
      case '/page':
        return send(200, 'text/html; charset=utf-8', PAGE_HTML);
      case '/data.json':
        return send(200, 'application/json', '{"name":"openai-acp","tools":7}');
      case '/big':
        return send(200, 'text/plain', `${'line of text\n'.repeat(Math.ceil(bigBytes / 13))}`);
      case '/r1':
        return send(302, 'text/plain', '', { location: '/r2' });
      case '/r2':
        return send(301, 'text/plain', '', { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page` });
      case '/loop':
        return send(302, 'text/plain', '', { location: '/loop' });
      case '/metadata':
        return send(302, 'text/plain', '', { location: 'http://169.254.169.254/latest/meta-data/' });
      case '/elsewhere':
        return send(302, 'text/plain', '', { location: `http://localhost:${(server.address() as AddressInfo).port}/page` });
      case '/bad-redirect':
        return send(302, 'text/plain', '', { location: 'http://[not-an-address/' });
      case '/image':
        return send(200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      case '/gz':
        return send(200, 'text/html', gzipSync(Buffer.from('<p>compressed <em>page</em></p>')), { 'content-encoding': 'gzip' });
      case '/slow':
        return; // never answers
      default:
        return send(404, 'text/html', '<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
