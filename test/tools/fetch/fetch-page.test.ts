/**
 * fetch_url against a loopback web server: HTML made Markdown, JSON and text as they are, caps
 * with a note, redirects (each hop checked), HTTP errors, wrong types, time limit, cancel, and
 * link-local addresses refused before any connection (a literal, a redirect, a DNS answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup, isForbiddenAddress, type LookupFunction } from '../../../src/tools/fetch/address-guard.js';
import { capPage, executeFetchUrl, fetchModelBytes } from '../../../src/tools/fetch/fetch-page.js';
import { textKind } from '../../../src/tools/fetch/http-get.js';
import { startWebPages, type WebPages } from '../../helpers/web-pages.js';

let web: WebPages;
beforeAll(async () => {
  web = await startWebPages();
});
afterAll(() => web.close());

const fetchUrl = (url: string, limits = {}, signal = new AbortController().signal) => executeFetchUrl(url, signal, limits);

describe('isForbiddenAddress', () => {
  it('refuses IPv4 and IPv6 link-local, also IPv4-mapped; allows the rest', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      '[fe80::1]',
      'fe80::abcd%eth0',
      'febf::1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '[64:ff9b::169.254.169.254]',
    ])
      expect(isForbiddenAddress(address)).toBe(true);
    for (const address of ['127.0.0.1', '10.0.0.1', '169.255.0.1', '::1', '64:ff9b::a9ff:1', '64:ff9b::7f00:1', 'fec0::1', 'example.com', ''])
      expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('guardedLookup', () => {
  const fake =
    (answer: string | { address: string; family: number }[]): LookupFunction =>
    (_host, _options, callback) =>
      callback(null, answer as never, 4);
  it('fails with EFORBIDDENADDR when any address of the answer is link-local', async () => {
    const result = await new Promise<[unknown, unknown]>((resolve) =>
      guardedLookup(
        fake([
          { address: '93.184.216.34', family: 4 },
          { address: '169.254.169.254', family: 4 },
        ]),
      )('x.test', { all: true }, (error, address) => resolve([error, address])),
    );
    expect((result[0] as NodeJS.ErrnoException).code).toBe('EFORBIDDENADDR');
    expect(String((result[0] as Error).message)).toMatch(/x\.test resolves to 169\.254\.169\.254/);
  });
  it('passes other answers through', async () => {
    const result = await new Promise<[unknown, unknown]>((resolve) =>
      guardedLookup(fake('127.0.0.1'))('x.test', {}, (error, address) => resolve([error, address])),
    );
    expect(result).toEqual([null, '127.0.0.1']);
  });
});

describe('executeFetchUrl', () => {
  it('gives an HTML page as Markdown without scripts, styles or page chrome, links made absolute', async () => {
    const outcome = await fetchUrl(`${web.url}/page`);
    expect(outcome.failed).toBe(false);
    expect(outcome.forModel).toBe(
      `${web.url}/page (HTTP 200, text/html, as Markdown)\n\n# Install\n\nRun \`npm install\`, then read [the next page](${web.url}/docs/next).`,
    );
  });

  it('gives JSON and compressed pages as text', async () => {
    expect((await fetchUrl(`${web.url}/data.json`)).forModel).toBe(`${web.url}/data.json (HTTP 200, application/json)\n\n{"name":"openai-acp","tools":7}`);
    expect((await fetchUrl(`${web.url}/gz`)).forModel).toMatch(/\n\ncompressed _page_$/);
  });

  it('cuts a page over the model share with a note; the client sees all of it', async () => {
    const outcome = await fetchUrl(`${web.url}/big`, { modelBytes: 1000 });
    expect(outcome.failed).toBe(false);
    expect(outcome.forModel).toMatch(/\n\[Note: cut to the first 1,000 of 200,005 bytes to fit the context window\.\]$/);
    expect(Buffer.byteLength(outcome.forModel)).toBeLessThan(1200);
    expect(JSON.stringify(outcome.content).length).toBeGreaterThan(200_000);
  });

  it('follows a redirect chain to the page, and refuses an endless one', async () => {
    const outcome = await fetchUrl(`${web.url}/r1`);
    expect(outcome.forModel.startsWith(`${web.url}/page (HTTP 200`)).toBe(true);
    const loop = await fetchUrl(`${web.url}/loop`);
    expect(loop.failed).toBe(true);
    expect(loop.forModel).toBe(`Could not fetch ${web.url}/loop: more than 5 redirects.`);
  });

  it('a redirect to a malformed Location is a failed result in words, not an internal error', async () => {
    const outcome = await fetchUrl(`${web.url}/bad-redirect`);
    expect(outcome.failed).toBe(true);
    expect(outcome.forModel).toBe(`Could not fetch ${web.url}/bad-redirect: it redirects to http://[not-an-address/, which is not a valid URL.`);
  });

  it('reports HTTP errors, wrong types, bad schemes and hosts that refuse', async () => {
    expect((await fetchUrl(`${web.url}/missing`)).forModel).toBe(`Could not fetch ${web.url}/missing: HTTP 404 Not Found.`);
    expect((await fetchUrl(`${web.url}/image`)).forModel).toMatch(/its content type is image\/png, which is not text/);
    expect((await fetchUrl('file:///etc/passwd')).forModel).toBe('Could not fetch file:///etc/passwd: only http and https URLs are fetched, not file.');
    expect((await fetchUrl('not a url')).forModel).toBe('Could not fetch not a url: it is not a valid URL.');
    expect((await fetchUrl('http://127.0.0.1:1/')).forModel).toBe('Could not fetch http://127.0.0.1:1/: 127.0.0.1:1 refused the connection.');
  });

  it('stops at a redirect to another host unless that host may be fetched unasked', async () => {
    const asked: string[] = [];
    const before = web.paths.length;
    const port = new URL(web.url).port;
    const stopped = await fetchUrl(`${web.url}/elsewhere`, { mayFollow: (url: URL) => (asked.push(url.host), false) });
    expect(stopped.failed).toBe(true);
    expect(stopped.forModel).toBe(
      `Could not fetch ${web.url}/elsewhere: it redirects to http://localhost:${port}/page, on another host that was not approved: call fetch_url with that URL to fetch it (the user is asked about that host).`,
    );
    expect(asked).toEqual([`localhost:${port}`]);
    expect(web.paths.slice(before)).toEqual(['/elsewhere']);
    // A redirect within the approved host is followed without asking.
    const same = await fetchUrl(`${web.url}/r1`, { mayFollow: (url: URL) => (asked.push(url.host), false) });
    expect(same.failed).toBeFalsy();
    expect(asked).toHaveLength(1);
  });

  it('gives up after the time limit', async () => {
    // `/slow` never answers: only the time limit can end this fetch.
    const outcome = await fetchUrl(`${web.url}/slow`, { timeoutMs: 300 });
    expect(outcome.forModel).toBe(`Could not fetch ${web.url}/slow: no complete answer within 300 ms.`);
  });

  it('rejects with the reason when the turn is cancelled', async () => {
    const controller = new AbortController();
    const pending = fetchUrl(`${web.url}/slow`, {}, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 50);
    await expect(pending).rejects.toThrow('cancelled by the user');
  });

  it('never connects to a link-local address: not as a literal, after a redirect, or from a DNS answer', async () => {
    const asked: string[] = [];
    const before = web.paths.length;
    const literal = await fetchUrl('http://169.254.169.254/latest/meta-data/');
    expect(literal.forModel).toMatch(/169\.254\.169\.254, a link-local address \(such as a cloud metadata service\), which is never fetched/);
    const redirected = await fetchUrl(`${web.url}/metadata`);
    expect(redirected.forModel).toBe(
      `Could not fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254, a link-local address (such as a cloud metadata service), which is never fetched.`,
    );
    // A name whose DNS answer is the metadata address: refused by the lookup, so no socket connects.
    const lookup: LookupFunction = (host, options, callback) => {
      asked.push(host);
      callback(null, options.all ? [{ address: '169.254.169.254', family: 4 }] : '169.254.169.254', 4);
    };
    const named = await fetchUrl('http://metadata.test/latest/', { lookup });
    expect(named.forModel).toBe(
      'Could not fetch http://metadata.test/latest/: metadata.test resolves to 169.254.169.254, a link-local address (such as a cloud metadata service), which is never fetched.',
    );
    expect(asked).toEqual(['metadata.test']);
    expect(web.paths.slice(before)).toEqual(['/metadata']);
  });
});

describe('pure parts', () => {
  it('textKind sorts content types', () => {
    expect(
      [
        'text/html; charset=utf-8',
        'application/xhtml+xml',
        'application/json',
        'application/vnd.api+json',
        'text/plain',
        'text/markdown',
        'application/xml',
        'image/svg+xml',
        '',
        'application/pdf',
        'image/png',
        'application/octet-stream',
      ].map(textKind),
    ).toEqual(['html', 'html', 'json', 'json', 'text', 'text', 'text', 'text', 'text', undefined, undefined, undefined]);
  });

  it('fetchModelBytes is a quarter of the window at 4 bytes a token, within 4,000 and 50,000 bytes', () => {
    expect([undefined, 2048, 8192, 32_768, 200_000].map(fetchModelBytes)).toEqual([50_000, 4_000, 8_192, 32_768, 50_000]);
  });

  it('capPage keeps text that fits (with extra notes) and cuts at a line end near the limit', () => {
    expect(capPage('short', 100)).toBe('short');
    expect(capPage('short', 100, ['only the first 2 MiB of the page were read'])).toBe('short\n\n[Note: only the first 2 MiB of the page were read.]');
    expect(capPage('aaaa\nbbbb\ncccc\n', 11)).toBe('aaaa\nbbbb\n\n[Note: cut to the first 9 of 15 bytes to fit the context window.]');
    expect(capPage('é'.repeat(10), 5)).toMatch(/^éé\n\n\[Note: cut to the first 4 of 20 bytes/);
  });
});

describe('through a proxy (HTTP_PROXY)', () => {
  it('tunnels to the host named in the URL, and refuses a name the local DNS resolves to a link-local address without asking the proxy', async () => {
    const { createServer } = await import('node:http');
    const { connect } = await import('node:net');
    const tunnels: string[] = [];
    const port = new URL(web.url).port;
    // A CONNECT proxy that reaches `web.test` at the loopback web server.
    const proxy = createServer();
    proxy.on('connect', (req, socket) => {
      tunnels.push(req.url ?? '');
      const upstream = connect(Number(port), '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    delete process.env.NO_PROXY;
    try {
      const resolveTo =
        (address: string): LookupFunction =>
        (_host, options, callback) =>
          callback(null, options.all ? [{ address, family: 4 }] : address, 4);
      const ok = await fetchUrl(`http://web.test:${port}/data.json`, { lookup: resolveTo('93.184.216.34') });
      expect(ok.forModel).toBe(`http://web.test:${port}/data.json (HTTP 200, application/json)\n\n{"name":"openai-acp","tools":7}`);
      expect(tunnels).toEqual([`web.test:${port}`]);
      const refused = await fetchUrl(`http://sneaky.test:${port}/data.json`, { lookup: resolveTo('169.254.169.254') });
      expect(refused.forModel).toMatch(/sneaky\.test resolves to 169\.254\.169\.254, a link-local address/);
      expect(tunnels).toHaveLength(1);
    } finally {
      for (const [key, value] of Object.entries(saved))
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
