/**
 * The chat client's transport (`nodeStream`, src/openai/http-body.ts) against loopback servers:
 * status and headers without a `Response`, chunks as they arrive (those of one read as one),
 * backpressure, aborts, a cut body, and an early stop closing the connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeStream } from '../../src/openai/http.js';
import { rawHeaderReader } from '../../src/openai/http-body.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function server(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  closers.push(() => s.closeAllConnections());
  closers.push(() => s.close());
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('rawHeaderReader', () => {
  it('reads names case-insensitively and joins repeated headers as Headers.get does', () => {
    const raw = ['Content-Type', 'text/event-stream', 'X-Rate', 'a', 'x-rate', 'b', 'Set-Cookie', 'c=1', 'set-cookie', 'd=2'];
    const reader = rawHeaderReader(raw);
    const headers = new Headers();
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    for (const name of ['content-type', 'CONTENT-TYPE', 'x-rate', 'set-cookie', 'retry-after']) expect(reader.get(name)).toBe(headers.get(name));
    expect(reader.get('x-rate')).toBe('a, b');
    expect(reader.get('retry-after')).toBeNull();
  });
});

describe('nodeStream', () => {
  it('answers status, ok and headers; a status outside 200-599 keeps its number; 204 has no body', async () => {
    const url = await server((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else if (req.url === '/odd') res.writeHead(600).end('odd');
      else res.writeHead(201, { 'x-echo': 'k', 'content-type': 'text/plain' }).end('made');
    });
    const made = await nodeStream(`${url}/made`, { method: 'POST', body: 'x' });
    expect([made.status, made.ok, made.headers.get('X-Echo')]).toEqual([201, true, 'k']);
    const chunks: string[] = [];
    for await (const chunk of made.body!) chunks.push(text(chunk));
    expect(chunks.join('')).toBe('made');
    const empty = await nodeStream(`${url}/empty`, {});
    expect([empty.status, empty.body]).toEqual([204, null]);
    const odd = await nodeStream(`${url}/odd`, {});
    expect([odd.status, odd.ok]).toEqual([600, false]);
  });

  it('delivers a piece before the next is sent, and pieces that arrived together as one chunk', async () => {
    let sendRest: () => void = () => undefined;
    const url = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      // Three HTTP chunks in one socket write: one read, one chunk for the reader.
      sendRest = () => {
        res.cork();
        res.write('data: two\n\n');
        res.write('data: three\n\n');
        res.end('data: four\n\n');
        res.uncork();
      };
    });
    const answer = await nodeStream(url, {});
    const reads = answer.body![Symbol.asyncIterator]();
    const first = await reads.next();
    expect(text(first.value!)).toBe('data: one\n\n');
    sendRest();
    const second = await reads.next();
    expect(text(second.value!)).toBe('data: two\n\ndata: three\n\ndata: four\n\n');
    expect((await reads.next()).done).toBe(true);
    expect((await reads.next()).done).toBe(true);
  });

  it('keeps what arrived while nobody reads (the socket paused), then reads on', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const url = await server((_req, res) => {
      res.writeHead(200);
      res.end(big);
    });
    const answer = await nodeStream(url, {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    let size = 0;
    for await (const chunk of answer.body!) size += chunk.length;
    expect(size).toBe(big.length);
  });

  it('fails a read with the abort reason, and every later read too', async () => {
    const url = await server((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const controller = new AbortController();
    const answer = await nodeStream(url, { signal: controller.signal });
    const reads = answer.body![Symbol.asyncIterator]();
    expect(text((await reads.next()).value!)).toBe('x');
    const pending = reads.next();
    controller.abort(new Error('later'));
    await expect(pending).rejects.toThrow('later');
    await expect(reads.next()).rejects.toThrow('later');
  });

  it('an abort while nobody reads fails the next read', async () => {
    const url = await server((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const controller = new AbortController();
    const answer = await nodeStream(url, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(answer.body![Symbol.asyncIterator]().next()).rejects.toThrow('stop');
  });

  it('a body cut short fails with TypeError terminated, "other side closed"', async () => {
    const url = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const answer = await nodeStream(url, {});
    const failure = await (async () => {
      for await (const _ of answer.body!);
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe('terminated');
    expect(((failure as Error).cause as Error).message).toBe('other side closed');
  });

  it('stopping early (return) closes the connection', async () => {
    let closed!: () => void;
    const serverClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await server((_req, res) => {
      res.on('close', () => closed());
      res.writeHead(200);
      res.write('first');
    });
    const answer = await nodeStream(url, {});
    for await (const chunk of answer.body!) {
      expect(text(chunk)).toBe('first');
      break;
    }
    await serverClosed;
  });
});
