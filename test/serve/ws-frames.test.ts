/**
 * The WebSocket frame reader `openai-acp serve` puts before `ws` (`src/serve/ws-frames.ts`): what it
 * hands on, read by `ws`'s own `Receiver`, is exactly the client's messages less the ones nested too
 * deep, however the bytes are split and fragmented, with control frames between fragments; a deep
 * message is refused at its first frame, before its end has come; what `ws` must refuse itself (a
 * frame past the size limit, an unmasked frame) is handed on untouched. Frames are built by `ws`'s
 * own `Sender.frame` (RFC 6455 §5.2).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { ClientFrames, MAX_FRAGMENTS } from '../../src/serve/ws-frames.js';

/** `ws`'s frame writer and reader: exported by the library, not declared by its types. */
const { Receiver, Sender } = ws as unknown as {
  Receiver: new (options: { isServer: boolean; maxPayload: number }) => import('node:stream').Writable;
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] };
};

const MAX_DEPTH = 4;
const MAX_PAYLOAD = 64 * 1024;

/** One frame as a client sends it (masked). */
function frame(payload: Buffer, opcode: number, fin = true, mask = true): Buffer {
  return Buffer.concat(Sender.frame(Buffer.from(payload), { fin, opcode, mask, readOnly: false, rsv1: false }));
}

/** What `ws` makes of `bytes`: its messages (text as strings) and its error, if any. */
async function received(parts: Uint8Array[]): Promise<{ messages: (string | Buffer)[]; error?: string }> {
  const receiver = new Receiver({ isServer: true, maxPayload: MAX_PAYLOAD });
  const messages: (string | Buffer)[] = [];
  let error: string | undefined;
  receiver.on('message', (data: Buffer, isBinary: boolean) => messages.push(isBinary ? Buffer.from(data) : data.toString('utf8')));
  receiver.on('error', (e: Error & { code?: string }) => (error = e.code));
  receiver.on('ping', () => messages.push('<ping>'));
  for (const part of parts) if (!error) receiver.write(Buffer.from(part.buffer, part.byteOffset, part.length));
  await new Promise((resolve) => setImmediate(resolve));
  return { messages, error };
}

/** Feeds `bytes` to a reader in pieces cut at `cuts` (fractions); returns what it handed on and how many it refused. */
function through(bytes: Buffer, cuts: number[] = []): { pass: Uint8Array[]; refused: number } {
  const reader = new ClientFrames(MAX_DEPTH, MAX_PAYLOAD);
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const pass: Uint8Array[] = [];
  let refused = 0;
  let from = 0;
  for (const to of [...points, bytes.length]) {
    const verdict = reader.push(bytes.subarray(from, to));
    pass.push(...verdict.pass);
    refused += verdict.refused;
    from = to;
  }
  return { pass, refused };
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('ClientFrames', () => {
  it('hands every message on but the ones nested too deep, whatever the fragments, splits and control frames between', async () => {
    const message = fc.record({
      kind: fc.constantFrom('shallow', 'deep', 'binary'),
      text: fc.json({ maxDepth: 2 }),
      fragments: fc.integer({ min: 1, max: 3 }),
      ping: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
        async (messages, cuts) => {
          const frames: Buffer[] = [];
          const expected: (string | Buffer)[] = [];
          for (const m of messages) {
            const text = m.kind === 'deep' ? `{"a":${deep(MAX_DEPTH + 1)}}` : m.text;
            const payload = Buffer.from(text);
            const size = Math.ceil(payload.length / m.fragments) || 1;
            const pieces: Buffer[] = [];
            for (let at = 0; at < payload.length || pieces.length === 0; at += size) pieces.push(payload.subarray(at, at + size));
            pieces.forEach((piece, i) => {
              frames.push(frame(piece, i === 0 ? (m.kind === 'binary' ? 2 : 1) : 0, i === pieces.length - 1));
              // A control frame between fragments: handed on at once.
              if (m.ping && i < pieces.length - 1) {
                frames.push(frame(Buffer.from('p'), 0x9));
                expected.push('<ping>');
              }
            });
            if (m.kind !== 'deep') expected.push(m.kind === 'binary' ? payload : text);
          }
          const { pass, refused } = through(Buffer.concat(frames), cuts);
          const got = await received(pass);
          expect(got.error).toBeUndefined();
          expect(refused).toBe(messages.filter((m) => m.kind === 'deep').length);
          // Pings of a refused message come before the message would have: compare without order across kinds.
          expect(got.messages.filter((m) => m !== '<ping>')).toEqual(expected.filter((m) => m !== '<ping>'));
          expect(got.messages.filter((m) => m === '<ping>').length).toBe(expected.filter((m) => m === '<ping>').length);
        },
      ),
    );
  });

  it('refuses a deep message at its first frame, before the rest has come, and drops the rest as it comes', () => {
    const reader = new ClientFrames(MAX_DEPTH, MAX_PAYLOAD);
    const first = reader.push(frame(Buffer.from(`{"a":${'['.repeat(MAX_DEPTH + 1)}`), 1, false));
    expect(first).toEqual({ pass: [], refused: 1 });
    expect(reader.push(frame(Buffer.from(']'.repeat(3000)), 0, false))).toEqual({ pass: [], refused: 0 });
    expect(reader.push(frame(Buffer.from(']'), 0, true))).toEqual({ pass: [], refused: 0 });
    // The next message is handed on whole.
    const next = frame(Buffer.from('{"jsonrpc":"2.0"}'), 1);
    expect(Buffer.concat(reader.push(next).pass)).toEqual(next);
  });

  it('hands on untouched what ws refuses itself: a frame past the size limit, an unmasked frame', async () => {
    const big = frame(Buffer.alloc(MAX_PAYLOAD + 1, 0x20), 1);
    const { pass } = through(big, [0.001, 0.5]);
    expect(Buffer.concat(pass)).toEqual(big);
    expect((await received(pass)).error).toBe('WS_ERR_UNSUPPORTED_MESSAGE_LENGTH');
    const unmasked = Buffer.concat([frame(Buffer.from('[]'), 1), frame(Buffer.from(deep(9)), 1, true, false)]);
    const got = through(unmasked, [0.3]);
    expect(Buffer.concat(got.pass)).toEqual(unmasked);
    expect(got.refused).toBe(0);
    expect((await received(got.pass)).error).toBe('WS_ERR_EXPECTED_MASK');
  });

  it('counts a message against the size limit by its payload, as ws does: fragments that fill it exactly are still read', async () => {
    const reader = new ClientFrames(MAX_DEPTH, MAX_PAYLOAD);
    // Two fragments whose payloads total the limit; the second nests too deep.
    const first = reader.push(frame(Buffer.alloc(10, 0x20), 1, false));
    const second = reader.push(frame(Buffer.from('['.repeat(MAX_PAYLOAD - 10)), 0, true));
    expect([...first.pass, ...second.pass]).toEqual([]);
    expect(second.refused).toBe(1);
    // Still reading: the next deep message is refused too.
    expect(reader.push(frame(Buffer.from(deep(9)), 1)).refused).toBe(1);
    expect(reader.handingOn).toBe(false);
  });

  it(`ends the reading of a message in more than ${MAX_FRAGMENTS} frames, holding nothing of it`, () => {
    const reader = new ClientFrames(MAX_DEPTH, MAX_PAYLOAD);
    let verdict = reader.push(frame(Buffer.from('['), 1, false));
    const empty = frame(Buffer.alloc(0), 0, false);
    for (let i = 1; i < MAX_FRAGMENTS && !verdict.fragmented; i++) verdict = reader.push(empty);
    expect(verdict).toEqual({ pass: [], refused: 0 });
    verdict = reader.push(Buffer.concat(Array.from({ length: 100_000 }, () => empty)));
    expect(verdict).toEqual({ pass: [], refused: 0, fragmented: true });
    expect(reader.push(frame(Buffer.from('[]'), 1))).toEqual({ pass: [], refused: 0, fragmented: true });
  });
});
