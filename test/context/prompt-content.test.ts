import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { promptToUserContent } from '../../src/context/prompt-content.js';

const BLOB = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const link = (name: string, uri: string, extra: Partial<ContentBlock & { type: 'resource_link' }> = {}): ContentBlock => ({
  type: 'resource_link',
  name,
  uri,
  ...extra,
});
const textResource = (uri: string, body: string, mimeType?: string): ContentBlock => ({
  type: 'resource',
  resource: { uri, text: body, ...(mimeType ? { mimeType } : {}) },
});
const blobResource = (uri: string, blob: string, mimeType?: string): ContentBlock => ({
  type: 'resource',
  resource: { uri, blob, ...(mimeType ? { mimeType } : {}) },
});
const image = (data: string, mimeType = 'image/png', uri?: string): ContentBlock => ({
  type: 'image',
  data,
  mimeType,
  ...(uri !== undefined ? { uri } : {}),
});

describe('promptToUserContent without images', () => {
  it('returns text as is, as a plain string', () => {
    expect(promptToUserContent([text('Hello, world')])).toBe('Hello, world');
  });

  it('sets consecutive text blocks apart with a blank line (a re-sent cancelled prompt stays its own message)', () => {
    expect(promptToUserContent([text('count slowly'), text('after cancel, still alive?')])).toBe('count slowly\n\nafter cancel, still alive?');
    expect(promptToUserContent([text('a\n'), text('b'), text('\nc')])).toBe('a\nb\nc');
  });

  it('keeps text around a mention as it came', () => {
    expect(promptToUserContent([text('see'), link('a.ts', 'file:///a.ts'), text('now')])).toBe('see\n[Resource: a.ts <file:///a.ts>]\nnow');
  });

  it('flattens a resource_link with its name and URI', () => {
    const out = promptToUserContent([text('Read'), link('main.ts', 'file:///repo/src/main.ts'), text('now')]);
    expect(typeof out).toBe('string');
    expect(out).toContain('main.ts');
    expect(out).toContain('file:///repo/src/main.ts');
    expect((out as string).startsWith('Read')).toBe(true);
    expect((out as string).indexOf('Read')).toBeLessThan((out as string).indexOf('file:///repo/src/main.ts'));
    expect((out as string).indexOf('file:///repo/src/main.ts')).toBeLessThan((out as string).indexOf('now'));
  });

  it('names title, mime type and description of a link when given', () => {
    const out = promptToUserContent([link('a.md', 'file:///a.md', { title: 'Readme', mimeType: 'text/markdown', description: 'docs' })]);
    expect(out).toContain('Readme');
    expect(out).toContain('a.md');
    expect(out).toContain('text/markdown');
    expect(out).toContain('docs');
  });

  it('includes an embedded text resource with its text and URI', () => {
    const out = promptToUserContent([text('Fix:'), textResource('file:///repo/app.py', 'print("hi")\n', 'text/x-python')]) as string;
    expect(out).toContain('file:///repo/app.py');
    expect(out).toContain('print("hi")');
    expect(out).toContain('app.py');
    expect(out).toContain('text/x-python');
    expect(out.indexOf('Fix:')).toBeLessThan(out.indexOf('print("hi")'));
  });

  it('names a blob resource but never includes its base64', () => {
    const out = promptToUserContent([text('See'), blobResource('file:///repo/logo%20big.png', BLOB, 'image/png')]) as string;
    expect(out).toContain('file:///repo/logo%20big.png');
    expect(out).toContain('logo big.png');
    expect(out).toContain('image/png');
    expect(out).not.toContain(BLOB);
    expect(out).not.toContain(BLOB.slice(0, 20));
  });

  it('does not start or end with the line breaks resources add', () => {
    const out = promptToUserContent([link('x', 'file:///x')]) as string;
    expect(out.startsWith('\n')).toBe(false);
    expect(out.endsWith('\n')).toBe(false);
    expect(promptToUserContent([])).toBe('');
  });

  it('names audio without sending it', () => {
    const out = promptToUserContent([{ type: 'audio', data: 'AAAAZm9v', mimeType: 'audio/wav' }]) as string;
    expect(out).toContain('audio/wav');
    expect(out).not.toContain('AAAAZm9v');
  });
});

/** The URL of the part an image block becomes, sent alone. */
function urlOf(block: ContentBlock): string | undefined {
  const part = (promptToUserContent([block]) as Exclude<ReturnType<typeof promptToUserContent>, string>)[0];
  return part?.type === 'image_url' ? part.image_url.url : undefined;
}

describe('images', () => {
  it('becomes an image_url part with a data: URL', () => {
    expect(promptToUserContent([image('QUJD', 'image/jpeg')])).toEqual([{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,QUJD' } }]);
  });

  it('uses an http(s) uri when there is no data', () => {
    expect(urlOf(image('', 'image/png', 'https://example.com/cat.png'))).toBe('https://example.com/cat.png');
    expect(urlOf(image('', 'image/png', 'HTTP://example.com/c.png'))).toBe('HTTP://example.com/c.png');
  });

  it('prefers the bytes it was given over an http(s) uri', () => {
    expect(urlOf(image('QUJD', 'image/png', 'https://example.com/cat.png'))).toBe('data:image/png;base64,QUJD');
  });

  it('never uses a non-http uri', () => {
    expect(urlOf(image('QUJD', 'image/png', 'file:///tmp/c.png'))).toBe('data:image/png;base64,QUJD');
  });

  it('gives an array of parts in prompt order', () => {
    const out = promptToUserContent([text('first'), image('AAAA'), link('b.ts', 'file:///b.ts'), text('second'), image('BBBB', 'image/webp'), text('third')]);
    expect(Array.isArray(out)).toBe(true);
    const parts = out as Exclude<typeof out, string>;
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url', 'text', 'image_url', 'text']);
    expect(parts[0]).toEqual({ type: 'text', text: 'first' });
    expect(parts[1]).toEqual({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } });
    expect(parts[2]!.type === 'text' && parts[2]!.text).toContain('file:///b.ts');
    expect(parts[2]!.type === 'text' && parts[2]!.text.endsWith('second')).toBe(true);
    expect(parts[3]).toEqual({ type: 'image_url', image_url: { url: 'data:image/webp;base64,BBBB' } });
    expect(parts[4]).toEqual({ type: 'text', text: 'third' });
  });

  it('an image alone gives a single part, no empty text parts', () => {
    expect(promptToUserContent([image('AAAA')])).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]);
  });
});
