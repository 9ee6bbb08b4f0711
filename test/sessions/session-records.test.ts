/**
 * The pure parsing of session files (no store, no I/O): `parseSessionText` + `toStoredSession`
 * (what `load` returns) and `summarizeSessionBytes` (what `list` returns, reading only some
 * lines) must agree on every file, including shapes the stores never write themselves (blank
 * lines before the header, whitespace-only files, CR line ends, a trailing line break).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SavedMcpTool, SessionRecord, TurnRecord } from '../../src/sessions/session-records.js';
import { parseRecord } from '../../src/sessions/parse-record.js';
import { serializeRecord } from '../../src/sessions/store-base.js';
import { sentImages } from '../../src/sessions/live-records.js';
import { parseSessionText, summarizeSessionBytes, toStoredSession, type Warn } from '../../src/sessions/session-text.js';

const HEADER = '{"type":"session","version":1,"sessionId":"s","cwd":"/c","createdAt":"2026-01-01T00:00:00.000Z"}';

/** One MCP tool as a session saves it. */
const SAVED_TOOL: SavedMcpTool = {
  name: 'docs__search',
  server: 'docs',
  tool: 'search',
  description: 'Searches the docs',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  readOnly: true,
  kind: 'read',
  title: 'docs: search',
};

/** A Warn that keeps its calls as `line:msg` strings. */
function collect(): { warn: Warn; seen: string[] } {
  const seen: string[] = [];
  return { warn: (_file, line, msg) => void seen.push(`${line}:${msg}`), seen };
}

/** Both views of one file's text. */
function views(text: string) {
  const load = collect();
  const list = collect();
  const parsed = parseSessionText(text, 'f', load.warn);
  return {
    stored: parsed && toStoredSession('s', parsed),
    summary: summarizeSessionBytes('s', Buffer.from(text, 'utf8'), 'f', list.warn),
    loadWarnings: load.seen,
    listWarnings: list.seen,
  };
}

describe('parseSessionText / toStoredSession', () => {
  it('skips blank lines before the header and counts them in warning line numbers', () => {
    const text = ['', '  ', HEADER, '{"type":"clear","at":"2026-01-02T00:00:00.000Z"}', 'not json', ''].join('\n');
    const { stored, summary, loadWarnings } = views(text);
    expect(stored).toEqual({
      sessionId: 's',
      cwd: '/c',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
      options: {},
      records: [{ type: 'clear', at: '2026-01-02T00:00:00.000Z' }],
    });
    expect(summary).toEqual({ sessionId: 's', cwd: '/c', updatedAt: '2026-01-02T00:00:00.000Z' });
    expect(loadWarnings).toEqual(['5:skipping a corrupt session record']);
  });

  it('gives nothing for an empty or whitespace-only file, warning at line 1', () => {
    for (const text of ['', '\n\n', ' \t\r\n  ']) {
      const { stored, summary, loadWarnings, listWarnings } = views(text);
      expect(stored).toBeUndefined();
      expect(summary).toBeUndefined();
      expect(loadWarnings).toEqual(['1:session file is empty; ignoring the session']);
      expect(listWarnings).toEqual(loadWarnings);
    }
  });

  it('gives nothing when the first non-blank line is not a header, warning at that line', () => {
    const { stored, summary, loadWarnings, listWarnings } = views(['', '{"type":"clear","at":"2026-01-02T00:00:00.000Z"}', HEADER].join('\n'));
    expect(stored).toBeUndefined();
    expect(summary).toBeUndefined();
    expect(loadWarnings).toEqual(['2:session file does not start with a valid header; ignoring the session']);
    expect(listWarnings).toEqual(loadWarnings);
  });

  it('merges meta records over each other and keeps the others in order; updatedAt is the last record', () => {
    const records: SessionRecord[] = [
      { type: 'meta', at: '2026-01-01T00:00:01.000Z', title: 'one', model: 'm1', options: { a: '1', b: '1' } },
      { type: 'compact', at: '2026-01-01T00:00:02.000Z', summary: 'so far' },
      { type: 'meta', at: '2026-01-01T00:00:03.000Z', options: { b: '2' } },
      { type: 'meta', at: '2026-01-01T00:00:00.500Z', title: 'two' },
    ];
    const stored = toStoredSession('s', { header: { cwd: '/c', createdAt: '2026-01-01T00:00:00.000Z' }, records });
    expect(stored).toEqual({
      sessionId: 's',
      cwd: '/c',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.500Z',
      title: 'two',
      model: 'm1',
      options: { a: '1', b: '2' },
      records: [records[1]],
    });
    expect(toStoredSession('s', { header: { cwd: '/c', createdAt: 'T0' }, records: [] })).toEqual({
      sessionId: 's',
      cwd: '/c',
      createdAt: 'T0',
      updatedAt: 'T0',
      options: {},
      records: [],
    });
  });
});

describe('mcp_tools records: the MCP tools offered, read back all or nothing', () => {
  const record = (tools: unknown, at = '2026-01-02T00:00:00.000Z') => ({ type: 'mcp_tools', at, tools });
  const broken: [string, unknown][] = [
    ['tools not a list', { name: 'x' }],
    ['a tool without its parameters', [SAVED_TOOL, { ...SAVED_TOOL, parameters: undefined }]],
    ['parameters that are no object schema', [{ ...SAVED_TOOL, parameters: { type: 'string' } }]],
    ['required that is no list of names', [{ ...SAVED_TOOL, parameters: { type: 'object', properties: {}, required: [1] } }]],
    ['a kind ACP has not', [{ ...SAVED_TOOL, kind: 'execute-all' }]],
    ['readOnly not a boolean', [{ ...SAVED_TOOL, readOnly: 'yes' }]],
    ['a name that is no string', [{ ...SAVED_TOOL, name: 7 }]],
  ];

  it('reads a saved list back; the stored session keeps the latest, outside the conversation', () => {
    const first = record([SAVED_TOOL], '2026-01-02T00:00:00.000Z');
    const second = record([SAVED_TOOL, { ...SAVED_TOOL, name: 'docs__fetch', tool: 'fetch' }], '2026-01-03T00:00:00.000Z');
    expect(parseRecord(JSON.parse(JSON.stringify(first)))).toEqual(first);
    const clear = '{"type":"clear","at":"2026-01-02T12:00:00.000Z"}';
    const { stored, loadWarnings } = views([HEADER, JSON.stringify(first), clear, JSON.stringify(second)].join('\n'));
    expect(loadWarnings).toEqual([]);
    expect(stored!.mcpTools).toEqual(second.tools);
    expect(stored!.records).toEqual([{ type: 'clear', at: '2026-01-02T12:00:00.000Z' }]);
    expect(stored!.updatedAt).toBe('2026-01-03T00:00:00.000Z');
  });

  it.each(broken)('skips a list with %s at debug level, and the rest of the file loads', (_what, tools) => {
    expect(parseRecord(record(tools))).toBeUndefined();
    const good = record([SAVED_TOOL], '2026-01-01T12:00:00.000Z');
    const turn = { type: 'turn', at: '2026-01-03T00:00:00.000Z', prompt: [], assistant: 'hi', reasoning: '', stopReason: 'end_turn' };
    const text = [HEADER, JSON.stringify(good), JSON.stringify(record(tools)), JSON.stringify(turn)].join('\n');
    const warnings: string[] = [];
    const parsed = parseSessionText(text, 'f', (_file, line, msg, level = 'warn') => void warnings.push(`${level} ${line}: ${msg}`));
    expect(warnings).toEqual([expect.stringMatching(/^debug 3: skipping a saved MCP tool list/)]);
    const stored = toStoredSession('s', parsed!);
    // The list saved before the broken one is the one offered again.
    expect(stored.mcpTools).toEqual(good.tools);
    expect(stored.records).toEqual([turn]);
  });

  it('is refused when written malformed, so the store never writes a list it cannot read back', () => {
    expect(() => serializeRecord('s', record([{ ...SAVED_TOOL, kind: 'nope' }]) as unknown as SessionRecord)).toThrow(/not a valid mcp_tools record/);
    expect(serializeRecord('s', record([SAVED_TOOL]) as unknown as SessionRecord)).toMatch(/^\{"type":"mcp_tools","at":/);
  });
});

describe('a failed turn', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
  const turn = (extra: Partial<TurnRecord> = {}): TurnRecord => ({
    type: 'turn',
    at,
    prompt: [image],
    assistant: '',
    reasoning: '',
    stopReason: 'end_turn',
    ...extra,
  });

  it('reads back with its kind and status; a malformed `failed` is left out, not the turn', () => {
    expect(parseRecord(turn({ failed: { kind: 'http', status: 500 } }))).toMatchObject({ failed: { kind: 'http', status: 500 } });
    expect(parseRecord(turn({ failed: { kind: 'connection' } }))).toMatchObject({ failed: { kind: 'connection' } });
    for (const failed of [true, { status: 500 }, { kind: 'http', status: '500' }, null]) expect(parseRecord({ ...turn(), failed })).toEqual(turn());
  });

  it('replaces the prompt saved as it started (same id) and stays in the session', () => {
    const started = turn({ id: 't1', stopReason: 'cancelled' });
    const ended = turn({ id: 't1', failed: { kind: 'http', status: 500 } });
    const stored = toStoredSession('s', { header: { cwd: '/c', createdAt: at }, records: [started, { type: 'meta', at, options: { a: '1' } }, ended] });
    expect(stored.records).toEqual([ended]);
  });

  it('does not count as the model having answered an image (the failure may be its refusal)', () => {
    expect(sentImages({ records: [turn({ failed: { kind: 'http', status: 400 } })] })).toBe(false);
    expect(sentImages({ records: [turn({ assistant: 'a cat' })] })).toBe(true);
  });
});

describe('summarizeSessionBytes agrees with parseSessionText + toStoredSession (property)', () => {
  const at = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  const text = fc.oneof(fc.string(), fc.constantFrom('"type":"meta"', '{"type":"meta","at":"x","title":"t"}', '\\', '"'));
  // Lines as the stores write them: JSON.stringify with `type` and `at` first.
  const record: fc.Arbitrary<SessionRecord> = fc.oneof(
    fc.record(
      {
        type: fc.constant('turn' as const),
        at,
        prompt: fc.constant<TurnRecord['prompt']>([]),
        assistant: text,
        reasoning: text,
        stopReason: fc.constant('end_turn'),
        toolCalls: fc.constant<unknown[]>([{ type: 'meta', title: 'nested, not a title' }]),
      },
      { requiredKeys: ['type', 'at', 'prompt', 'assistant', 'reasoning', 'stopReason'] },
    ),
    fc.record({ type: fc.constant('meta' as const), at, title: text, model: text }, { requiredKeys: ['type', 'at'] }),
    fc.record({ type: fc.constant('clear' as const), at }),
    fc.record({ type: fc.constant('compact' as const), at, summary: text }),
    fc.record({ type: fc.constant('mcp_tools' as const), at, tools: fc.constant<SavedMcpTool[]>([SAVED_TOOL]) }),
  );
  const garbage = fc
    .oneof(
      fc.constantFrom(
        '{"type":"meta","at":1,"title":"no"}',
        '{"type":"meta","at":"x","title":"torn',
        'x"type":"meta"',
        HEADER,
        '{}',
        '{"type":"mcp_tools","at":"x","tools":[{}]}',
      ),
      fc.string({ minLength: 1 }),
    )
    .filter((g) => {
      if (g.includes('\n') || g.trim() === '') return false;
      try {
        return parseRecord(JSON.parse(g)) === undefined;
      } catch {
        return true;
      }
    });
  const blank = fc.constantFrom('', ' ', '\t', '\r');
  const line = fc.oneof({ arbitrary: record.map((r) => JSON.stringify(r)), weight: 3 }, { arbitrary: garbage, weight: 2 }, { arbitrary: blank, weight: 1 });

  it('same cwd, title and updatedAt; list warns only about lines load warns about', () => {
    fc.assert(
      fc.property(fc.array(blank, { maxLength: 2 }), fc.array(line, { maxLength: 12 }), fc.boolean(), (before, body, trailingBreak) => {
        const file = [...before, HEADER, ...body].join('\n') + (trailingBreak ? '\n' : '');
        const { stored, summary, loadWarnings, listWarnings } = views(file);
        expect(stored).toBeDefined();
        expect(summary).toEqual({
          sessionId: 's',
          cwd: stored!.cwd,
          updatedAt: stored!.updatedAt,
          ...(stored!.title === undefined ? {} : { title: stored!.title }),
        });
        for (const warning of listWarnings) expect(loadWarnings).toContain(warning);
      }),
      { numRuns: 300 },
    );
  });
});
