/** The NDJSON transport's output (src/transport/line-output.ts): batched lines to a Node stream, or a web stream. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lineOutput } from '../../src/transport/line-output.js';

/** A Node stream recording each `write` it gets; its callbacks wait for `release()` when `hold` is set. */
function recorder(options: { highWaterMark?: number; hold?: boolean } = {}) {
  const writes: string[] = [];
  const held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      writes.push(String(chunk));
      if (options.hold) held.push(() => callback());
      else callback();
    },
  });
  return {
    stream,
    writes,
    release: () => {
      for (const done of held.splice(0)) done();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('lineOutput to a Node stream', () => {
  it('writes the lines of one burst of work (promise jobs included) as one write, in order', async () => {
    const { stream, writes } = recorder();
    const out = lineOutput(stream);
    const burst = (async () => {
      await out.write('{"a":1}');
      await out.write('{"b":2}');
      await Promise.resolve();
      await out.write('{"c":"é"}');
    })();
    expect(writes).toEqual([]);
    await burst;
    await tick();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n{"c":"é"}\n']);
    await out.write('{"d":4}');
    await tick();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n{"c":"é"}\n', '{"d":4}\n']);
  });

  it('makes writes wait for drain once the stream is full, and resolves them at drain', async () => {
    const { stream, writes, release } = recorder({ highWaterMark: 8, hold: true });
    const out = lineOutput(stream);
    await out.write('a long line over the mark');
    await tick();
    expect(writes).toHaveLength(1);
    let done = false;
    const waiting = out.write('next').then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    release();
    await tick();
    release();
    await waiting;
    expect(writes.join('')).toBe('a long line over the mark\nnext\n');
  });

  it('rejects writes once the stream failed or was closed', async () => {
    const { stream } = recorder();
    const out = lineOutput(stream);
    stream.on('error', () => undefined);
    stream.destroy(new Error('EPIPE'));
    await expect(out.write('x')).rejects.toThrow('closed');
    await tick();
    await expect(out.write('x')).rejects.toThrow('EPIPE');

    const ended = recorder();
    const closing = lineOutput(ended.stream);
    await closing.write('last');
    await closing.close();
    expect(ended.writes).toEqual(['last\n']);
    await expect(closing.write('after')).rejects.toThrow('closed');
  });
});

describe('lineOutput to a web stream', () => {
  it('writes each line as UTF-8 bytes', async () => {
    const written: string[] = [];
    const out = lineOutput(new WritableStream<Uint8Array>({ write: (bytes) => void written.push(Buffer.from(bytes).toString('utf8')) }));
    await out.write('{"a":"é"}');
    await out.write('{"b":2}');
    await out.close();
    expect(written).toEqual(['{"a":"é"}\n', '{"b":2}\n']);
  });
});
