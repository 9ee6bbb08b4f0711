import { describe, expect, it } from 'vitest';
import { createThinkTagSplitter, type ThinkSegment } from '../../src/openai/think-tags.js';

/** Feed the pieces, flush, and merge all segments by type in order. */
function run(pieces: string[]): ThinkSegment[] {
  const splitter = createThinkTagSplitter();
  const all = [...pieces.flatMap((p) => splitter.push(p)), ...splitter.flush()];
  const merged: ThinkSegment[] = [];
  for (const s of all) {
    const last = merged[merged.length - 1];
    if (last && last.type === s.type) last.text += s.text;
    else merged.push({ ...s });
  }
  return merged;
}

describe('createThinkTagSplitter', () => {
  it('passes text without tags through unchanged and undelayed', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('Hello, world')).toEqual([{ type: 'text', text: 'Hello, world' }]);
    expect(splitter.push('a < b and c > d')).toEqual([{ type: 'text', text: 'a < b and c > d' }]);
    expect(splitter.push('x <b>')).toEqual([{ type: 'text', text: 'x <b>' }]);
    expect(splitter.flush()).toEqual([]);
  });

  it('splits a whole tagged string, keeping whitespace verbatim (Together R1 fixture)', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('<think>\nhmm\n</think>\nAnswer')).toEqual([
      { type: 'reasoning', text: '\nhmm\n' },
      { type: 'text', text: '\nAnswer' },
    ]);
  });

  it('handles tags arriving as their own deltas', () => {
    expect(run(['<think>', '\n', 'Okay', '</think>', '\n\n', 'Hi'])).toEqual([
      { type: 'reasoning', text: '\nOkay' },
      { type: 'text', text: '\n\nHi' },
    ]);
  });

  it('holds back only a possible tag prefix', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('abc<th')).toEqual([{ type: 'text', text: 'abc' }]);
    expect(splitter.push('ink>deep')).toEqual([{ type: 'reasoning', text: 'deep' }]);
    expect(splitter.push('er</')).toEqual([{ type: 'reasoning', text: 'er' }]);
    expect(splitter.push('think>done')).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('releases a held prefix that turns out not to be a tag', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('1 <')).toEqual([{ type: 'text', text: '1 ' }]);
    expect(splitter.push(' 2')).toEqual([{ type: 'text', text: '< 2' }]);
    expect(splitter.push('<thin')).toEqual([]);
    expect(splitter.push('g>')).toEqual([{ type: 'text', text: '<thing>' }]);
  });

  it('flush releases a partial tag as content of the current kind', () => {
    const a = createThinkTagSplitter();
    expect(a.push('x<thi')).toEqual([{ type: 'text', text: 'x' }]);
    expect(a.flush()).toEqual([{ type: 'text', text: '<thi' }]);
    expect(a.flush()).toEqual([]);
    const b = createThinkTagSplitter();
    expect(b.push('<think>still thinking</th')).toEqual([{ type: 'reasoning', text: 'still thinking' }]);
    expect(b.flush()).toEqual([{ type: 'reasoning', text: '</th' }]);
  });

  it('merges adjacent same-type segments and never emits empty ones', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('a<think></think>b')).toEqual([{ type: 'text', text: 'ab' }]);
    expect(splitter.push('<think></think>')).toEqual([]);
    expect(splitter.push('')).toEqual([]);
  });

  it('treats </think> in text and <think> in reasoning as content', () => {
    expect(run(['a</think>b'])).toEqual([{ type: 'text', text: 'a</think>b' }]);
    expect(run(['<think>x<think>y</think>z'])).toEqual([
      { type: 'reasoning', text: 'x<think>y' },
      { type: 'text', text: 'z' },
    ]);
  });

  it('supports several think blocks', () => {
    expect(run(['<think>r1</think>t1<think>r2</think>t2'])).toEqual([
      { type: 'reasoning', text: 'r1' },
      { type: 'text', text: 't1' },
      { type: 'reasoning', text: 'r2' },
      { type: 'text', text: 't2' },
    ]);
  });

  it('gives the same result for a cut at every position, and every pair of cuts', () => {
    const input = 'pre <think>\nr < s </t\n</think>\n\npost <thin';
    const want = [
      { type: 'text', text: 'pre ' },
      { type: 'reasoning', text: '\nr < s </t\n' },
      { type: 'text', text: '\n\npost <thin' },
    ];
    for (let i = 0; i <= input.length; i++) {
      expect(run([input.slice(0, i), input.slice(i)]), `cut ${i}`).toEqual(want);
      for (let j = i; j <= input.length; j++) {
        expect(run([input.slice(0, i), input.slice(i, j), input.slice(j)])).toEqual(want);
      }
    }
    expect(run([...input])).toEqual(want);
  });

  it('emits text right away at every cut of the tag that cannot be a tag', () => {
    const splitter = createThinkTagSplitter();
    for (const piece of ['<', 't', 'h']) splitter.push(piece);
    expect(splitter.push('x')).toEqual([{ type: 'text', text: '<thx' }]);
  });
});
