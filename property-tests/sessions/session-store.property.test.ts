import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { webUrl } from '../../test/helpers/web-url.js';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionStore, titleFromPrompt, TITLE_MAX_CHARS, type SessionRecord, type SessionStore } from '../../src/sessions/session-store.js';
import { parseRecord } from '../../src/sessions/parse-record.js';
import { captureLogger } from '../../test/helpers/session-store-fixtures.js';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: binaryUnit }),
  fc.constantFrom('\n', '\u2028', '"}\n{"type":"clear"', '\\', ' \t '),
);
const at = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((t) => ({ type: 'text' as const, text: t })),
  fc.record({ type: fc.constant('resource_link' as const), uri: webUrl(), name: text }),
  fc.record({ type: fc.constant('image' as const), data: fc.base64String(), mimeType: fc.constant('image/png') }),
);
const options = fc.dictionary(fc.string(), text, { maxKeys: 3 }).map((o) => Object.fromEntries(Object.entries(o)));
const record: fc.Arbitrary<SessionRecord> = fc.oneof(
  fc.record(
    {
      type: fc.constant('turn' as const),
      at,
      prompt: fc.array(block, { maxLength: 3 }),
      assistant: text,
      reasoning: text,
      stopReason: fc.constantFrom('end_turn', 'cancelled', 'max_tokens', 'refusal'),
      usage: fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat(), totalTokens: fc.nat() }, { requiredKeys: [] }),
      toolCalls: fc.array(fc.jsonValue(), { maxLength: 2 }),
      toolResults: fc.array(fc.jsonValue(), { maxLength: 2 }),
    },
    { requiredKeys: ['type', 'at', 'prompt', 'assistant', 'reasoning', 'stopReason'] },
  ),
  fc.record({ type: fc.constant('meta' as const), at, title: text, model: text, options }, { requiredKeys: ['type', 'at'] }),
  fc.record({ type: fc.constant('clear' as const), at }),
  fc.record({ type: fc.constant('compact' as const), at, summary: text }),
);

/** Turn and meta records whose lines contain `"type":"meta"` outside a string, or inside one. */
const nestedMeta: fc.Arbitrary<SessionRecord> = fc.constantFrom<SessionRecord>(
  {
    type: 'turn',
    at: '2030-01-01T00:00:00.000Z',
    prompt: [],
    assistant: '"type":"meta"',
    reasoning: '',
    stopReason: 'end_turn',
    steps: [
      {
        text: '"type":"meta"',
        reasoning: '',
        toolCalls: [{ id: 'c', name: 'meta', arguments: '{"type":"meta","title":"not a title"}' }],
        results: [{ id: 'c', toolCallId: 't', title: '', kind: 'other', status: 'completed', content: [], forModel: '{"type":"meta"}' }],
      },
    ],
  },
  { type: 'meta', at: '2030-01-01T00:00:01.000Z', model: 'm', options: { k: '{"type":"meta","title":"no"}' } },
);

/** What load should return for these records: meta merged, the rest in order. */
function expected(records: SessionRecord[]) {
  let title: string | undefined;
  let model: string | undefined;
  const merged: Record<string, string> = {};
  for (const r of records) {
    if (r.type !== 'meta') continue;
    if (r.title !== undefined) title = r.title;
    if (r.model !== undefined) model = r.model;
    Object.assign(merged, r.options);
  }
  return {
    ...(title === undefined ? {} : { title }),
    ...(model === undefined ? {} : { model }),
    options: merged,
    records: records.filter((r) => r.type !== 'meta'),
    updatedAt: records.at(-1)?.at ?? '2026-01-01T00:00:00.000Z',
  };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fileStore(): Promise<SessionStore> {
  const dir = mkdtempSync(join(tmpdir(), 'openai-acp-store-prop-'));
  dirs.push(dir);
  return openSessionStore({ stateDir: dir, env: {}, logger: captureLogger() });
}

describe('session store (property)', () => {
  it.each([
    ['memory', () => openSessionStore({ stateDir: 'off', env: {}, logger: captureLogger() }), 200],
    ['file', fileStore, 40],
  ] as const)('%s store: any records load back as appended (JSON-equal), meta merged', async (_name, open, numRuns) => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 12 }), async (records) => {
        const store = await open();
        await store.create({ sessionId: 's', cwd: '/c', createdAt: '2026-01-01T00:00:00.000Z' });
        for (const r of records) await store.append('s', r);
        const loaded = await store.load('s');
        const want = expected(JSON.parse(JSON.stringify(records)) as SessionRecord[]);
        expect(loaded).toEqual({ sessionId: 's', cwd: '/c', createdAt: '2026-01-01T00:00:00.000Z', ...want });
        expect(await store.list()).toEqual([{ sessionId: 's', cwd: '/c', updatedAt: want.updatedAt, ...('title' in want ? { title: want.title } : {}) }]);
      }),
      { numRuns },
    );
  });

  it('garbage lines in a file are skipped with one warning each; the valid records all load', async () => {
    const lookalikes = fc.constantFrom(
      '{"type":"meta","at":1,"title":"no"}',
      '{"type":"meta","at":"x","title":"torn',
      'x"type":"meta"',
      '{"type":"turn","at":"x"}',
      '{"type":"session","cwd":"/","createdAt":"x"}',
    );
    const garbage = fc.oneof(lookalikes, fc.string({ unit: binaryUnit, minLength: 1 })).filter((g) => {
      if (g.includes('\n') || g.trim() === '') return false;
      try {
        return parseRecord(JSON.parse(g)) === undefined;
      } catch {
        return true;
      }
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            record.map((r) => ({ r })),
            nestedMeta.map((r) => ({ r })),
            garbage.map((g) => ({ g })),
          ),
          { maxLength: 12 },
        ),
        async (lines) => {
          const logger = captureLogger();
          const dir = mkdtempSync(join(tmpdir(), 'openai-acp-store-prop-'));
          dirs.push(dir);
          const store = await openSessionStore({ stateDir: dir, env: {}, logger });
          await store.create({ sessionId: 'g', cwd: '/c', createdAt: '2026-01-01T00:00:00.000Z' });
          const valid: SessionRecord[] = [];
          for (const line of lines) {
            if ('r' in line) {
              await store.append('g', line.r);
              valid.push(line.r);
            } else {
              appendFileSync(join(dir, 'g.jsonl'), `\n${line.g}`);
            }
          }
          // list() reads only some lines; it must agree with load().
          const listed = await store.list();
          const loaded = await store.load('g');
          expect(loaded).toMatchObject(expected(JSON.parse(JSON.stringify(valid)) as SessionRecord[]));
          expect(listed).toEqual([
            { sessionId: 'g', cwd: '/c', updatedAt: loaded!.updatedAt, ...(loaded!.title === undefined ? {} : { title: loaded!.title }) },
          ]);
          // One warning per bad line, however many times it was read.
          const badLines = lines.flatMap((l, i) => ('g' in l ? [i + 2] : []));
          expect(
            logger
              .warnings()
              .map((w) => (w.fields as { line: number }).line)
              .sort((x, y) => x - y),
          ).toEqual(badLines);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('titleFromPrompt (property)', () => {
  it('is the collapsed text when short, else a prefix of it ending in "…"; never over 80 characters', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 5 }), (prompt) => {
        const collapsed = prompt
          .flatMap((b) => (b.type === 'text' ? [b.text] : []))
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim();
        const title = titleFromPrompt(prompt);
        if (collapsed === '') {
          expect(title).toBeUndefined();
          return;
        }
        expect(title).toBeDefined();
        const chars = [...title!];
        expect(chars.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
        expect(title).toBe(title!.trim());
        expect(title).not.toMatch(/\s\s|[^\S ]/);
        if ([...collapsed].length <= TITLE_MAX_CHARS) {
          expect(title).toBe(collapsed);
          return;
        }
        expect(title!.endsWith('…')).toBe(true);
        expect(collapsed.startsWith(title!.slice(0, -1))).toBe(true);
        expect(chars.length).toBeGreaterThanOrEqual(TITLE_MAX_CHARS / 2);
      }),
      { numRuns: 2000 },
    );
  });
});
