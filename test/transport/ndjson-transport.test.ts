import type { AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { invalidReason, ndJsonTransport } from '../../src/transport/ndjson-transport.js';
import { LineSplitter, peekIds } from '../../src/transport/line-splitter.js';
import { createLogger } from '../../src/shared/log.js';

/** Runs the transport over `chunks` of stdin; returns what it passed on, wrote and logged. */
async function run(chunks: (string | Uint8Array)[], options: { maxLineBytes?: number; failWith?: Error } = {}) {
  const written: string[] = [];
  const logs: string[] = [];
  const output = new WritableStream<Uint8Array>({ write: (bytes) => void written.push(Buffer.from(bytes).toString('utf8')) });
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if (options.failWith) controller.error(options.failWith);
      else controller.close();
    },
  });
  const logger = createLogger({ level: 'debug', write: (line) => void logs.push(line) });
  const transport = ndJsonTransport(output, input, { logger, ...(options.maxLineBytes ? { maxLineBytes: options.maxLineBytes } : {}) });
  const messages: AnyMessage[] = [];
  const reader = transport.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    messages.push(value);
  }
  const answers = written
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { messages, answers, written, logs, transport };
}

const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n';

describe('ndJsonTransport input', () => {
  it('answers a 5,000-deep invalid request with -32600 and its id, without echoing it, and reads on', async () => {
    const deep = `{"jsonrpc":"1.0","id":7,"method":"x","params":${'['.repeat(5000)}${']'.repeat(5000)}}\n`;
    const { messages, answers, logs } = await run([init, deep, '{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}\n']);
    expect(messages.map((m) => (m as { id: unknown }).id)).toEqual([1, 2]);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0"' } }]);
    expect(logs.some((line) => line.startsWith('openai-acp error: stdin line 2'))).toBe(true);
  });

  it('answers a deep id with id null', async () => {
    const { answers } = await run([`{"jsonrpc":"2.0","id":${'['.repeat(5000)}${']'.repeat(5000)},"method":"x"}\n`]);
    expect(answers[0]).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers a 20 MB invalid request with a bounded answer', async () => {
    const big = `{"jsonrpc":"2.0","id":3,"method":42,"params":{"text":"${'x'.repeat(20_000_000)}"}}\n`;
    const { written, answers } = await run([big]);
    expect(written.join('').length).toBeLessThan(300);
    expect(answers[0]).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('refuses a line over the limit naming the limit and the id, then serves the next line', async () => {
    const head = '{"jsonrpc":"2.0","id":"p-1","sessionId":"bus-A","method":"session/prompt","params":{"prompt":[{"type":"text","text":"';
    const body = 'y'.repeat(1000);
    const { messages, answers, logs } = await run([head, body, body, '"}]}}\n', init], { maxLineBytes: 1024 });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ id: 'p-1', sessionId: 'bus-A', error: { code: -32600 } });
    expect(answers[0].error.message).toContain('over the 1024 bytes limit');
    expect(messages).toHaveLength(1);
    expect(logs.join('')).toContain('openai-acp error: stdin line 1 refused');
  });

  it('answers non-JSON with -32700 and id null, and arrays and scalars with -32600', async () => {
    const { answers, messages } = await run(['not json\n', '[1,2]\n', '42\n', '\n', '  \n', init]);
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
    ]);
    expect(messages).toHaveLength(1);
  });

  it('passes requests, notifications and responses, and a last line without a line feed', async () => {
    const { messages, answers } = await run(['{"jsonrpc":"2.0","method":"n"}\r\n{"jsonrpc":"2.0","id":4,"result":{}}\n{"jsonrpc":"2.0","id":5,"method":"m"}']);
    expect(answers).toEqual([]);
    expect(messages).toHaveLength(3);
  });

  it('reads a Node stream (stdin) too, and passes a 9 MB line cut into 64 KiB reads intact', async () => {
    const text = `é${'p'.repeat(9_000_000)}😀`;
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'm', params: { text } })}\n${init}`);
    const reads = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => bytes.subarray(i * 65_536, (i + 1) * 65_536));
    const transport = ndJsonTransport(new WritableStream<Uint8Array>(), Readable.from(reads));
    const messages: AnyMessage[] = [];
    for await (const message of transport.readable) messages.push(message);
    expect(messages).toHaveLength(2);
    expect((messages[0] as { params: { text: string } }).params.text === text).toBe(true);
    expect(messages[1]).toMatchObject({ id: 1, method: 'initialize' });
  });

  it('records a read error as a failure and logs it', async () => {
    const { transport, logs } = await run([init], { failWith: new Error('EIO') });
    expect(transport.failure?.message).toBe('EIO');
    expect(logs.join('')).toContain('openai-acp error: reading stdin failed');
  });
});

describe('ndJsonTransport output', () => {
  it('replaces a response that cannot be serialised by -32603 and drops such a notification', async () => {
    const written: string[] = [];
    const output = new WritableStream<Uint8Array>({ write: (bytes) => void written.push(Buffer.from(bytes).toString('utf8')) });
    const transport = ndJsonTransport(output, new ReadableStream(), { logger: createLogger({ level: 'error', write: () => undefined }) });
    let deep: unknown = {};
    for (let i = 0; i < 20_000; i++) deep = { deep };
    const writer = transport.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 9, result: deep } as AnyMessage);
    await writer.write({ jsonrpc: '2.0', method: 'session/update', params: deep } as AnyMessage);
    await writer.write({ jsonrpc: '2.0', id: 10, result: {} } as AnyMessage);
    const lines = written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error: the answer could not be encoded as JSON' } },
      { jsonrpc: '2.0', id: 10, result: {} },
    ]);
  });
});

describe('invalidReason', () => {
  it('accepts what the SDK accepts', () => {
    expect(invalidReason({ jsonrpc: '2.0', id: null, method: 'x' })).toBeUndefined();
    expect(invalidReason({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } })).toBeUndefined();
    expect(invalidReason({ jsonrpc: '2.0', id: 1.5e300 * 1e10, method: 'x' })).toBe('"id" must be a string, a number or null');
    expect(invalidReason({ jsonrpc: '2.0' })).toContain('needs a "method"');
  });
});

describe('LineSplitter and peekIds', () => {
  it('splits lines across chunks and keeps only the head of an oversized line', () => {
    const splitter = new LineSplitter(8);
    expect(splitter.push(Buffer.from('ab'))).toEqual([]);
    const out = splitter.push(Buffer.from('c\n0123456789xyz\nok'));
    expect(out[0]).toEqual({ kind: 'line', text: 'abc', bytes: 3 });
    expect(out[1]).toMatchObject({ kind: 'oversized', bytes: 13 });
    expect(splitter.end()).toEqual({ kind: 'line', text: 'ok', bytes: 2 });
  });

  it('reads only top-level ids', () => {
    expect(peekIds('{"params":{"id":5,"sessionId":"inner"},"id":"x\\"y","sessionId":3,')).toEqual({ id: 'x"y', sessionId: 3 });
    expect(peekIds('{"jsonrpc":"2.0","id":12')).toEqual({});
    expect(peekIds('{"jsonrpc":"2.0","id":12,')).toEqual({ id: 12 });
  });
});
