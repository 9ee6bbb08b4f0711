import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { classifySseEvent } from '../../src/openai/sse-items.js';

const enc = new TextEncoder();

function decodeAll(...pieces: (string | Uint8Array)[]): SseItem[] {
  const decoder = createSseDecoder();
  const items: SseItem[] = [];
  for (const piece of pieces) items.push(...decoder.push(typeof piece === 'string' ? enc.encode(piece) : piece));
  items.push(...decoder.end());
  return items;
}

const chunk = (content: string) => ({ choices: [{ index: 0, delta: { content } }] });
const dataLine = (content: string) => `data: ${JSON.stringify(chunk(content))}`;

describe('classifySseEvent', () => {
  it('parses a JSON object into a chunk', () => {
    expect(classifySseEvent({ data: JSON.stringify(chunk('hi')) })).toEqual({ kind: 'chunk', chunk: chunk('hi') });
  });

  it('recognizes [DONE]', () => {
    expect(classifySseEvent({ data: '[DONE]' })).toEqual({ kind: 'done' });
    expect(classifySseEvent({ data: ' [DONE] ' })).toEqual({ kind: 'done' });
  });

  it('skips empty, non-JSON and non-object data', () => {
    expect(classifySseEvent({ data: '' }).kind).toBe('skip');
    expect(classifySseEvent({ data: 'hello' }).kind).toBe('skip');
    expect(classifySseEvent({ data: '{"truncated":' }).kind).toBe('skip');
    expect(classifySseEvent({ data: '42' }).kind).toBe('skip');
    expect(classifySseEvent({ data: '[1,2]' }).kind).toBe('skip');
    expect(classifySseEvent({ data: 'null' }).kind).toBe('skip');
  });

  it('turns a top-level error object into an error (OpenRouter, Groq in a 200 stream)', () => {
    const error = { message: 'Provider returned error', code: 429 };
    expect(classifySseEvent({ data: JSON.stringify({ error }) })).toEqual({ kind: 'error', error });
  });

  it('keeps a chunk whose error is null or not an object', () => {
    expect(classifySseEvent({ data: '{"error":null,"choices":[]}' })).toEqual({ kind: 'chunk', chunk: { error: null, choices: [] } });
    expect(classifySseEvent({ data: '{"error":"x"}' }).kind).toBe('chunk');
  });

  it('treats event: error as an error whatever its data', () => {
    expect(classifySseEvent({ event: 'error', data: '{"error":{"message":"boom","code":"tool_use_failed"}}' })).toEqual({
      kind: 'error',
      error: { message: 'boom', code: 'tool_use_failed' },
    });
    expect(classifySseEvent({ event: 'error', data: '{"message":"flat"}' })).toEqual({ kind: 'error', error: { message: 'flat' } });
    expect(classifySseEvent({ event: 'error', data: 'upstream exploded' })).toEqual({ kind: 'error', error: { message: 'upstream exploded' } });
    expect(classifySseEvent({ event: 'error', data: '"quoted"' })).toEqual({ kind: 'error', error: { message: 'quoted' } });
    expect(classifySseEvent({ event: 'error', data: '' }).kind).toBe('error');
  });
});

describe('createSseDecoder', () => {
  it('decodes LF-framed events and [DONE]', () => {
    expect(decodeAll(`${dataLine('a')}\n\n${dataLine('b')}\n\ndata: [DONE]\n\n`)).toEqual([
      { kind: 'chunk', chunk: chunk('a') },
      { kind: 'chunk', chunk: chunk('b') },
      { kind: 'done' },
    ]);
  });

  it('decodes CRLF and CR line endings, including a CRLF split between pushes', () => {
    const crlf = `${dataLine('a')}\r\n\r\n${dataLine('b')}\r\n\r\n`;
    const cut = crlf.indexOf('\r') + 1;
    const expected = [
      { kind: 'chunk', chunk: chunk('a') },
      { kind: 'chunk', chunk: chunk('b') },
    ];
    expect(decodeAll(crlf)).toEqual(expected);
    expect(decodeAll(crlf.slice(0, cut), crlf.slice(cut))).toEqual(expected);
    expect(decodeAll(`${dataLine('a')}\r\r${dataLine('b')}\r\r`)).toEqual(expected);
  });

  it('accepts data: with no space and strips only one space', () => {
    expect(decodeAll(`data:${JSON.stringify(chunk('x'))}\n\n`)).toEqual([{ kind: 'chunk', chunk: chunk('x') }]);
    expect(decodeAll('data:  [DONE]\n\n')).toEqual([{ kind: 'done' }]);
  });

  it('ignores comments (OpenRouter ": OPENROUTER PROCESSING")', () => {
    expect(decodeAll(': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n', `${dataLine('a')}\n\n`)).toEqual([{ kind: 'chunk', chunk: chunk('a') }]);
  });

  it('joins multi-line data with \\n', () => {
    expect(decodeAll('data: {"choices":\ndata: []}\n\n')).toEqual([{ kind: 'chunk', chunk: { choices: [] } }]);
  });

  it('delivers event: error (Groq) and an error object in a plain data event', () => {
    const groq = 'event: error\ndata: {"error":{"message":"Tool choice is required","type":"invalid_request_error"}}\n\n';
    const openrouter = 'data: {"error":{"message":"Rate limited","code":429}}\n\n';
    expect(decodeAll(`${dataLine('a')}\n\n`, groq, openrouter)).toEqual([
      { kind: 'chunk', chunk: chunk('a') },
      { kind: 'error', error: { message: 'Tool choice is required', type: 'invalid_request_error' } },
      { kind: 'error', error: { message: 'Rate limited', code: 429 } },
    ]);
  });

  it('resets the event type after each event', () => {
    expect(decodeAll('event: error\ndata: oops\n\n', `${dataLine('a')}\n\n`)).toEqual([
      { kind: 'error', error: { message: 'oops' } },
      { kind: 'chunk', chunk: chunk('a') },
    ]);
  });

  it('skips non-JSON data without stopping', () => {
    expect(decodeAll('data: keep-alive\n\n', `${dataLine('a')}\n\n`)).toEqual([
      { kind: 'skip', reason: 'data is not JSON' },
      { kind: 'chunk', chunk: chunk('a') },
    ]);
  });

  it('returns items from push synchronously as events complete', () => {
    const decoder = createSseDecoder();
    expect(decoder.push(enc.encode(dataLine('a')))).toEqual([]);
    expect(decoder.push(enc.encode('\n'))).toEqual([]);
    expect(decoder.push(enc.encode(`\n${dataLine('b')}\n\n${dataLine('c')}`))).toEqual([
      { kind: 'chunk', chunk: chunk('a') },
      { kind: 'chunk', chunk: chunk('b') },
    ]);
    expect(decoder.end()).toEqual([{ kind: 'chunk', chunk: chunk('c') }]);
  });

  it('delivers an unterminated last event at end() (no blank line, no newline, trailing CR)', () => {
    for (const tail of ['', '\n', '\r', '\r\n']) {
      expect(decodeAll(`${dataLine('a')}\n\n${dataLine('z')}${tail}`)).toEqual([
        { kind: 'chunk', chunk: chunk('a') },
        { kind: 'chunk', chunk: chunk('z') },
      ]);
    }
    expect(decodeAll('data: [DONE]')).toEqual([{ kind: 'done' }]);
  });

  it('end() adds nothing after a properly terminated stream', () => {
    const decoder = createSseDecoder();
    expect(decoder.push(enc.encode(`${dataLine('a')}\n\n`))).toHaveLength(1);
    expect(decoder.end()).toEqual([]);
  });

  it('decodes a multi-byte UTF-8 character split across pushes', () => {
    const bytes = enc.encode(`${dataLine('Olá 👋 日本')}\n\n`);
    const start = bytes.indexOf(0xf0); // first byte of the 4-byte emoji
    for (const cut of [start + 1, start + 2, start + 3]) {
      expect(decodeAll(bytes.subarray(0, cut), bytes.subarray(cut))).toEqual([{ kind: 'chunk', chunk: chunk('Olá 👋 日本') }]);
    }
    const oneByOne = Array.from(bytes, (b) => new Uint8Array([b]));
    expect(decodeAll(...oneByOne)).toEqual([{ kind: 'chunk', chunk: chunk('Olá 👋 日本') }]);
  });

  it('ignores a line with an unknown field, such as " data:" with a leading space (WHATWG)', () => {
    expect(decodeAll(` ${dataLine('lost')}\n\n${dataLine('kept')}\n\n`)).toEqual([{ kind: 'chunk', chunk: chunk('kept') }]);
  });

  it('strips a UTF-8 byte order mark', () => {
    expect(decodeAll(new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), `${dataLine('a')}\n\n`)).toEqual([{ kind: 'chunk', chunk: chunk('a') }]);
  });

  // Its speed (linear in the stream) is measured by `npm run bench`, not here: a busy machine is no clock.
  it('decodes a 20,000-event stream read in 16 KiB pieces', () => {
    const body = enc.encode(Array.from({ length: 20_000 }, (_, i) => `${dataLine(` t${i}`)}\n\n`).join(''));
    const decoder = createSseDecoder();
    let count = 0;
    for (let o = 0; o < body.length; o += 16_384) count += decoder.push(body.subarray(o, o + 16_384)).length;
    count += decoder.end().length;
    expect(count).toBe(20_000);
  });
});
