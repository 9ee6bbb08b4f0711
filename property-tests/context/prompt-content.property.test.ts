import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { promptToUserContent } from '../../src/context/prompt-content.js';

/*
 * Everything but blob data is drawn from lower-case letters, digits and punctuation, and every
 * blob holds an upper-case letter: so a blob's base64 can only show up if it was dumped.
 */
const lower = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 .,:;-_()[]<>{}\n\t'.split('')), maxLength: 40 });
const segment = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'.split('')), minLength: 1, maxLength: 12 });
const uri = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `file:///${parts.join('/')}`),
  fc.tuple(segment, segment).map(([host, path]) => `https://${host}.example/${path}`),
);
const mime = fc.option(fc.constantFrom('text/plain', 'text/x-python', 'application/json', 'image/png', 'application/octet-stream'), { nil: undefined });
const base64 = fc
  .uint8Array({ minLength: 6, maxLength: 48 })
  .map((bytes) => Buffer.from(bytes).toString('base64'))
  .filter((s) => /[A-Z]/.test(s));
const imageData = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789+/'.split('')), minLength: 4, maxLength: 24 });

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  lower.map((text): ContentBlock => ({ type: 'text', text })),
  fc.record({ name: segment, uri, mimeType: mime }).map((r): ContentBlock => ({ type: 'resource_link', ...r })),
  fc.record({ uri, text: lower, mimeType: mime }).map((resource): ContentBlock => ({ type: 'resource', resource })),
  fc.record({ uri, blob: base64, mimeType: mime }).map((resource): ContentBlock => ({ type: 'resource', resource })),
  fc.record({ data: imageData, mimeType: fc.constantFrom('image/png', 'image/jpeg', 'image/webp') }).map((r): ContentBlock => ({ type: 'image', ...r })),
);

/** Leading and trailing line breaks of a prompt's text runs are dropped by design. */
const trimNewlines = (text: string) => text.replace(/^\n+|\n+$/g, '');

describe('promptToUserContent (property)', () => {
  it('keeps every text, link, resource URI and text resource; never a blob; one image part per image, in order', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 12 }), (prompt) => {
        const content = promptToUserContent(prompt);
        const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
        const allText = parts.map((part) => (part.type === 'text' ? part.text : '')).join('\u0000');
        const images = prompt.filter((b): b is Extract<ContentBlock, { type: 'image' }> => b.type === 'image');

        if (images.length === 0) expect(typeof content).toBe('string');
        const imageParts = parts.filter((part) => part.type === 'image_url');
        expect(imageParts).toEqual(images.map((image) => ({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } })));

        for (const b of prompt) {
          if (b.type === 'text') expect(allText).toContain(trimNewlines(b.text));
          if (b.type === 'resource_link') {
            expect(allText).toContain(b.uri);
            expect(allText).toContain(b.name);
          }
          if (b.type === 'resource') {
            expect(allText).toContain(b.resource.uri);
            if ('text' in b.resource) expect(allText).toContain(b.resource.text);
            if ('blob' in b.resource) expect(JSON.stringify(content)).not.toContain(b.resource.blob);
          }
        }
        if (typeof content !== 'string') for (const part of content) if (part.type === 'text') expect(part.text).not.toBe('');
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps the relative order of texts and images', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 10 }), (prompt) => {
        const content = promptToUserContent(prompt);
        if (typeof content === 'string') return;
        // Each text block lands in the text part between the images it stood between.
        let imageIndex = 0;
        const textBefore: string[][] = [[]];
        for (const b of prompt) {
          if (b.type === 'image') textBefore[++imageIndex] = [];
          else if (b.type === 'text' && trimNewlines(b.text).trim()) textBefore[imageIndex]!.push(trimNewlines(b.text));
        }
        let seen = 0;
        let segmentText = '';
        const segments: string[] = [];
        for (const part of content) {
          if (part.type === 'image_url') {
            segments[seen++] = segmentText;
            segmentText = '';
          } else segmentText += part.text;
        }
        segments[seen] = segmentText;
        for (const [i, texts] of textBefore.entries()) for (const text of texts) expect(segments[i]).toContain(text);
      }),
      { numRuns: 500 },
    );
  });
});
