import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultStateDir, openSessionStore, titleFromPrompt, type SessionRecord, type SessionStore } from '../../src/sessions/session-store.js';
import { SessionStoreError } from '../../src/sessions/store-base.js';
import { captureLogger, isoAt, makeTempDir, meta, removeTempDirs, turn, type CapturingLogger } from '../helpers/session-store-fixtures.js';

afterEach(removeTempDirs);

const CWD = '/home/user/project';

async function openFileStore(logger: CapturingLogger = captureLogger()): Promise<{ store: SessionStore; dir: string; logger: CapturingLogger }> {
  const dir = join(makeTempDir(), 'sessions');
  const store = await openSessionStore({ stateDir: dir, env: {}, logger });
  expect(store.persistent).toBe(true);
  return { store, dir, logger };
}

async function openMemoryStore(logger: CapturingLogger = captureLogger()): Promise<{ store: SessionStore; dir: undefined; logger: CapturingLogger }> {
  const store = await openSessionStore({ stateDir: 'off', env: {}, logger });
  logger.records.length = 0;
  return { store, dir: undefined, logger };
}

/** Behaviour both stores share. */
describe.each([
  ['file store', openFileStore],
  ['memory store', openMemoryStore],
] as const)('%s', (_name, open) => {
  it('creates a session with records after its header (a fork), whole', async () => {
    const { store } = await open();
    const records: SessionRecord[] = [turn('one', isoAt(1)), meta(isoAt(2), { title: 'copy (fork)', options: { mode: 'plan' } })];
    await store.create({ sessionId: 'f1', cwd: CWD, createdAt: isoAt(0) }, records);
    const loaded = await store.load('f1');
    expect(loaded).toMatchObject({ title: 'copy (fork)', options: { mode: 'plan' }, updatedAt: isoAt(2), records: [records[0]] });
    expect((await store.list()).map((s) => s.sessionId)).toEqual(['f1']);
  });

  it('returns what was appended, in order, with the meta records merged', async () => {
    const { store } = await open();
    await store.create({ sessionId: 's1', cwd: CWD, createdAt: isoAt(0) });
    const records: SessionRecord[] = [
      meta(isoAt(1), { title: 'first title', model: 'gpt-4o', options: { effort: 'low', mode: 'ask' } }),
      turn('1', isoAt(2), {
        prompt: [
          { type: 'text', text: 'look at' },
          { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
          { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        ],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        steps: [
          {
            text: 'reading',
            reasoning: '',
            toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
            results: [{ id: 'call_1', toolCallId: 'tc1', title: 'Read a.ts', kind: 'read', status: 'completed', content: [], forModel: 'ok' }],
          },
        ],
      }),
      { type: 'clear', at: isoAt(3) },
      meta(isoAt(4), { model: 'gpt-4o-mini', options: { effort: 'high' } }),
      turn('2', isoAt(5), { stopReason: 'cancelled', assistant: 'partial', reasoning: '' }),
      { type: 'compact', at: isoAt(6), summary: 'we talked' },
    ];
    for (const record of records) await store.append('s1', record);

    const loaded = await store.load('s1');
    expect(loaded).toEqual({
      sessionId: 's1',
      cwd: CWD,
      createdAt: isoAt(0),
      updatedAt: isoAt(6),
      title: 'first title',
      model: 'gpt-4o-mini',
      options: { effort: 'high', mode: 'ask' },
      records: [records[1], records[2], records[4], records[5]],
    });
  });

  it('a new session has no records and updatedAt = createdAt; the latest title wins', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'fresh', cwd: CWD, createdAt: isoAt(7) });
    expect(await store.load('fresh')).toEqual({ sessionId: 'fresh', cwd: CWD, createdAt: isoAt(7), updatedAt: isoAt(7), options: {}, records: [] });
    await store.append('fresh', meta(isoAt(8), { title: 'a' }));
    await store.append('fresh', meta(isoAt(9), { title: 'b' }));
    expect((await store.load('fresh'))?.title).toBe('b');
  });

  it('loads are copies: changing one does not change the store', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'c', cwd: CWD, createdAt: isoAt(0) });
    const record = turn('x', isoAt(1));
    await store.append('c', record);
    record.assistant = 'mutated after append';
    const first = await store.load('c');
    (first!.records[0] as { assistant: string }).assistant = 'mutated after load';
    expect(((await store.load('c'))!.records[0] as { assistant: string }).assistant).toBe('answer x');
  });

  it('refuses to create a session twice, and appends to unknown sessions', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'dup', cwd: CWD, createdAt: isoAt(0) });
    await store.append('dup', turn('1', isoAt(1)));
    await expect(store.create({ sessionId: 'dup', cwd: '/elsewhere', createdAt: isoAt(5) })).rejects.toMatchObject({
      name: 'SessionStoreError',
      code: 'exists',
    });
    expect((await store.load('dup'))?.records).toHaveLength(1);
    await expect(store.append('nobody', turn('1'))).rejects.toMatchObject({ code: 'not-found', sessionId: 'nobody' });
    expect(await store.load('nobody')).toBeUndefined();
  });

  it('rejects records that would not load back, without writing them', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'r', cwd: CWD, createdAt: isoAt(0) });
    const bad: unknown[] = [
      { type: 'turn', at: isoAt(1), prompt: [], assistant: 'a', reasoning: '' },
      { type: 'meta', at: isoAt(1), options: { effort: 3 } },
      { type: 'compact', at: isoAt(1) },
      { type: 'nonsense', at: isoAt(1) },
      { type: 'clear' },
      { type: 'turn', at: isoAt(1), prompt: [], assistant: 'a', reasoning: '', stopReason: 'end_turn', usage: { inputTokens: 1n } },
    ];
    for (const record of bad) {
      await expect(store.append('r', record as SessionRecord)).rejects.toMatchObject({ code: 'invalid-record' });
    }
    expect(await store.load('r')).toMatchObject({ records: [], updatedAt: isoAt(0) });
  });

  it.each(['../outside', '..', '.', '.hidden', 'a/b', 'a\\b', '', ' s', 's\n', '/etc/passwd', 'x'.repeat(201), 'é'])(
    'treats the invalid id %j as not found',
    async (id) => {
      const { store } = await open();
      await expect(store.create({ sessionId: id, cwd: CWD, createdAt: isoAt(0) })).rejects.toMatchObject({ code: 'invalid-id' });
      expect(await store.load(id)).toBeUndefined();
      await expect(store.append(id, turn('1'))).rejects.toMatchObject({ code: 'not-found' });
      await expect(store.delete(id)).resolves.toBeUndefined();
      expect(await store.list()).toEqual([]);
    },
  );

  it('accepts ids of 1 to 200 characters from the allowed set', async () => {
    const { store } = await open();
    for (const id of ['a', '0', 'A.b_c-d', `a${'.'.repeat(199)}`, 'x'.repeat(200), '550e8400-e29b-41d4-a716-446655440000']) {
      await store.create({ sessionId: id, cwd: CWD, createdAt: isoAt(0) });
      await store.append(id, turn(id, isoAt(1)));
      expect((await store.load(id))?.records).toHaveLength(1);
    }
  });

  it('delete removes the session; deleting an unknown one succeeds', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'gone', cwd: CWD, createdAt: isoAt(0) });
    await store.create({ sessionId: 'kept', cwd: CWD, createdAt: isoAt(0) });
    await store.delete('gone');
    expect(await store.load('gone')).toBeUndefined();
    await expect(store.append('gone', turn('1'))).rejects.toMatchObject({ code: 'not-found' });
    await expect(store.delete('gone')).resolves.toBeUndefined();
    await expect(store.delete('never-existed')).resolves.toBeUndefined();
    expect((await store.list()).map((s) => s.sessionId)).toEqual(['kept']);
    // The id is free again.
    await store.create({ sessionId: 'gone', cwd: '/new', createdAt: isoAt(9) });
    expect(await store.load('gone')).toMatchObject({ cwd: '/new', records: [] });
  });

  it('lists newest first, ties by sessionId, with the latest title and last record time', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'old', cwd: '/a', createdAt: isoAt(10) });
    await store.create({ sessionId: 'b-tie', cwd: '/b', createdAt: isoAt(50) });
    await store.create({ sessionId: 'a-tie', cwd: '/a', createdAt: isoAt(50) });
    await store.create({ sessionId: 'busy', cwd: '/a', createdAt: isoAt(1) });
    await store.append('busy', meta(isoAt(2), { title: 'Busy one' }));
    await store.append('busy', turn('1', isoAt(60)));
    await store.append('busy', meta(isoAt(100), { title: 'Busy, renamed' }));
    await store.append('old', turn('1', isoAt(20)));
    expect(await store.list()).toEqual([
      { sessionId: 'busy', cwd: '/a', title: 'Busy, renamed', updatedAt: isoAt(100) },
      { sessionId: 'a-tie', cwd: '/a', updatedAt: isoAt(50) },
      { sessionId: 'b-tie', cwd: '/b', updatedAt: isoAt(50) },
      { sessionId: 'old', cwd: '/a', updatedAt: isoAt(20) },
    ]);
  });

  it('keeps the call order of appends made without waiting', async () => {
    const { store } = await open();
    await store.create({ sessionId: 'fast', cwd: CWD, createdAt: isoAt(0) });
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.append('fast', turn(String(i), isoAt(i + 1)))));
    const loaded = await store.load('fast');
    expect(loaded!.records.map((r) => (r as { assistant: string }).assistant)).toEqual(Array.from({ length: 40 }, (_, i) => `answer ${i}`));
  });
});

describe('file store on disk', () => {
  it('writes one header line and one JSON line per record, type and at first', async () => {
    const { store, dir } = await openFileStore();
    await store.create({ sessionId: 's', cwd: CWD, createdAt: isoAt(0) });
    await store.append('s', { stopReason: 'end_turn', assistant: 'hi', reasoning: '', prompt: [], at: isoAt(1), type: 'turn' });
    const lines = readFileSync(join(dir, 's.jsonl'), 'utf8').split('\n');
    expect(lines).toHaveLength(2); // the line break goes before each record, none at the end
    expect(JSON.parse(lines[0]!)).toEqual({ type: 'session', version: 1, sessionId: 's', cwd: CWD, createdAt: isoAt(0) });
    expect(lines[1]).toMatch(/^\{"type":"turn","at":"2026-01-01T00:00:01.000Z",/);
    // Besides the session file, only the leases' directory (session-lease.ts).
    expect(readdirSync(dir)).toEqual(['.leases', 's.jsonl']);
  });

  it('sees what another store instance (another process, in effect) appended: no stale cache', async () => {
    const { store, dir } = await openFileStore();
    const other = await openSessionStore({ stateDir: dir, env: {}, logger: captureLogger() });
    await store.create({ sessionId: 'shared', cwd: CWD, createdAt: isoAt(0) });
    expect(await other.load('shared')).toMatchObject({ records: [] });
    // One writer at a time (the lease): each lets the session go before the other writes.
    await store.release('shared');
    await other.append('shared', turn('from other', isoAt(1)));
    await other.release('shared');
    await store.append('shared', turn('from first', isoAt(2)));
    await store.release('shared');
    expect((await other.load('shared'))!.records).toHaveLength(2);
    expect((await store.load('shared'))!.records).toHaveLength(2);
    await other.delete('shared');
    expect(await store.load('shared')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('removes a session created with removeWhenBlank that holds nothing when released or at close, and keeps the rest', async () => {
    const { store, dir } = await openFileStore();
    const blank = (sessionId: string) => store.create({ sessionId, cwd: CWD, createdAt: isoAt(0) }, [], { removeWhenBlank: true });
    await blank('empty');
    await blank('undone');
    await blank('answered');
    await blank('titled');
    await blank('at-exit');
    await store.create({ sessionId: 'plain', cwd: CWD, createdAt: isoAt(0) });
    // A failed turn: saved as it started, then taken out again.
    await store.append('undone', turn('failed', isoAt(1)));
    await store.append('undone', { type: 'undo', at: isoAt(2) });
    await store.append('answered', turn('kept', isoAt(1)));
    await store.append('titled', meta(isoAt(1), { title: 'named' }));
    // Listed while held, as any session is.
    expect((await store.list()).map((s) => s.sessionId).sort()).toEqual(['answered', 'at-exit', 'empty', 'plain', 'titled', 'undone']);
    for (const id of ['empty', 'undone', 'answered', 'titled', 'plain']) await store.release(id);
    expect(
      readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .sort(),
    ).toEqual(['answered.jsonl', 'at-exit.jsonl', 'plain.jsonl', 'titled.jsonl']);
    store.close();
    expect(
      readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .sort(),
    ).toEqual(['answered.jsonl', 'plain.jsonl', 'titled.jsonl']);
  });

  it('skips a torn trailing record with a warning naming the file and line; the next append is unharmed', async () => {
    const { store, dir, logger } = await openFileStore();
    await store.create({ sessionId: 't', cwd: CWD, createdAt: isoAt(0) });
    await store.append('t', turn('1', isoAt(1)));
    const file = join(dir, 't.jsonl');
    const whole = JSON.stringify(turn('2', isoAt(2)));
    appendFileSync(file, `\n${whole.slice(0, whole.length / 2)}`); // a writer killed mid-record

    const loaded = await store.load('t');
    expect(loaded!.records).toEqual([turn('1', isoAt(1))]);
    expect(loaded!.updatedAt).toBe(isoAt(1));
    expect(logger.warnings()).toEqual([expect.objectContaining({ msg: expect.stringMatching(/torn/), fields: { file, line: 3 } })]);

    await store.append('t', turn('3', isoAt(3)));
    expect((await store.load('t'))!.records).toEqual([turn('1', isoAt(1)), turn('3', isoAt(3))]);
  });

  it('skips corrupt middle lines (bad JSON, wrong shape) and keeps the rest, one warning per line', async () => {
    const { store, dir, logger } = await openFileStore();
    await store.create({ sessionId: 'm', cwd: CWD, createdAt: isoAt(0) });
    await store.append('m', turn('1', isoAt(1)));
    const file = join(dir, 'm.jsonl');
    appendFileSync(file, '\n{"type":"turn","at":"x", garbage\n[1,2]\n\n{"type":"meta","at":"y","title":7}\n\u0000\u0000');
    await store.append('m', turn('2', isoAt(2)));
    await store.append('m', meta(isoAt(3), { title: 'ok' }));

    const loaded = await store.load('m');
    expect(loaded).toMatchObject({ title: 'ok', updatedAt: isoAt(3), records: [turn('1', isoAt(1)), turn('2', isoAt(2))] });
    expect(logger.warnings().map((w) => w.fields)).toEqual([3, 4, 6, 7].map((line) => ({ file, line })));
    // Listing the same file again does not repeat the warnings.
    expect((await store.list()).map((s) => [s.sessionId, s.title])).toEqual([['m', 'ok']]);
    expect(logger.warnings()).toHaveLength(4);
  });

  it('skips a saved MCP tool list that does not read back at debug level, not as a warning; the latest good one loads', async () => {
    const { store, dir, logger } = await openFileStore();
    const tools = [
      {
        name: 'fx__ping',
        server: 'fx',
        tool: 'ping',
        description: 'Answers pong',
        parameters: { type: 'object' as const, properties: {}, required: [] },
        readOnly: false,
        kind: 'other' as const,
        title: 'fx: ping',
      },
    ];
    await store.create({ sessionId: 'k', cwd: CWD, createdAt: isoAt(0) });
    await store.append('k', { type: 'mcp_tools', at: isoAt(1), tools });
    appendFileSync(join(dir, 'k.jsonl'), `\n{"type":"mcp_tools","at":"${isoAt(2)}","tools":[{"name":"fx__ping"}]}`);
    await store.append('k', turn('1', isoAt(3)));
    const loaded = await store.load('k');
    expect(loaded).toMatchObject({ mcpTools: tools, records: [turn('1', isoAt(3))] });
    expect(logger.warnings()).toEqual([]);
    expect(logger.records.filter((r) => r.level === 'debug' && /saved MCP tool list/.test(r.msg)).map((r) => r.fields)).toEqual([
      { file: join(dir, 'k.jsonl'), line: 3 },
    ]);
  });

  it('ignores, with a warning, a file whose header is unreadable; lists skip stray files', async () => {
    const { store, dir, logger } = await openFileStore();
    await store.create({ sessionId: 'good', cwd: CWD, createdAt: isoAt(0) });
    writeFileSync(join(dir, 'broken.jsonl'), 'not json\n{"type":"clear","at":"x"}\n');
    writeFileSync(join(dir, 'empty.jsonl'), '');
    writeFileSync(join(dir, '.tmp-good-123456'), 'leftover');
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    writeFileSync(join(dir, '.hidden.jsonl'), '{"type":"session","cwd":"/","createdAt":"x"}\n');
    mkdirSync(join(dir, 'dir.jsonl'));

    expect(await store.load('broken')).toBeUndefined();
    expect((await store.list()).map((s) => s.sessionId)).toEqual(['good']);
    const warned = logger.warnings().map((w) => (w.fields as { file: string }).file);
    expect(warned).toEqual(expect.arrayContaining([join(dir, 'broken.jsonl'), join(dir, 'empty.jsonl'), join(dir, 'dir.jsonl')]));
  });

  it('never touches files outside the directory, whatever the id', async () => {
    const { store, dir } = await openFileStore();
    const outside = join(dir, '..', 'outside.jsonl');
    const header = '{"type":"session","version":1,"sessionId":"outside","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z"}\n';
    writeFileSync(outside, header);
    expect(await store.load('../outside')).toBeUndefined();
    await store.delete('../outside');
    await expect(store.append('../outside', turn('1'))).rejects.toThrow(SessionStoreError);
    expect(readFileSync(outside, 'utf8')).toBe(header);
  });

  it('reads no session file that is a symlink leading out of the directory: not listed, not loaded', async () => {
    const { store, dir } = await openFileStore();
    const outside = join(dir, '..', 'elsewhere.jsonl');
    writeFileSync(outside, '{"type":"session","version":1,"sessionId":"linked","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z"}\n');
    symlinkSync(outside, join(dir, 'linked.jsonl'));
    expect((await store.list()).map((s) => s.sessionId)).toEqual([]);
    await expect(store.load('linked')).rejects.toThrow(/outside the allowed directories/);
  });

  it('makes the directory 0700 and the session files 0600, even with umask 0', async () => {
    const previous = process.umask(0);
    try {
      const base = makeTempDir();
      const dir = join(base, 'deep', 'sessions');
      const store = await openSessionStore({ stateDir: dir, env: {}, logger: captureLogger() });
      await store.create({ sessionId: 'p', cwd: CWD, createdAt: isoAt(0) });
      await store.append('p', turn('1', isoAt(1)));
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(base, 'deep')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'p.jsonl')).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['.leases', 'p.jsonl']); // the probe file is gone (.leases: session-lease.ts)
    } finally {
      process.umask(previous);
    }
  });

  it('removes temporary files left over an hour ago by a killed process, and keeps fresh ones', async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, '.tmp-old-0123456789ab'), '{"type":"session"');
    writeFileSync(join(dir, '.tmp-new-0123456789ab'), '{"type":"session"');
    const hoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(dir, '.tmp-old-0123456789ab'), hoursAgo, hoursAgo);
    await openSessionStore({ stateDir: dir, env: {}, logger: captureLogger() });
    // The clean-up runs just after start-up, not before the store is ready.
    for (let i = 0; i < 100 && readdirSync(dir).length > 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync(dir)).toEqual(['.tmp-new-0123456789ab']);
  });

  it('leaves the mode of a directory that already exists alone', async () => {
    const dir = makeTempDir();
    chmodSync(dir, 0o750);
    const store = await openSessionStore({ stateDir: dir, env: {}, logger: captureLogger() });
    expect(store.dir).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o750);
  });
});

describe('openSessionStore', () => {
  it.each(['off', 'OFF', ' Off '])('%j gives the memory store with one warning', async (value) => {
    const logger = captureLogger();
    const store = await openSessionStore({ stateDir: value, env: {}, logger });
    expect(store.persistent).toBe(false);
    expect(store.dir).toBeUndefined();
    expect(logger.records).toEqual([{ level: 'warn', msg: expect.stringMatching(/off.*will not survive a restart/), fields: undefined }]);
  });

  it('falls back to the memory store, with one warning, when the directory cannot be created', async () => {
    const base = makeTempDir();
    writeFileSync(join(base, 'a-file'), '');
    const dir = join(base, 'a-file', 'sessions');
    const logger = captureLogger();
    const store = await openSessionStore({ stateDir: dir, env: {}, logger });
    expect(store.persistent).toBe(false);
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]).toMatchObject({ level: 'warn', msg: expect.stringContaining(dir), fields: { dir } });
    expect(logger.records[0]!.msg).toMatch(/will not survive a restart/);
    // And it works.
    await store.create({ sessionId: 's', cwd: CWD, createdAt: isoAt(0) });
    await store.append('s', turn('1', isoAt(1)));
    expect((await store.load('s'))!.records).toHaveLength(1);
  });

  it.skipIf(process.getuid?.() === 0)('falls back to the memory store when the directory is not writable', async () => {
    const dir = makeTempDir();
    chmodSync(dir, 0o500);
    try {
      const logger = captureLogger();
      const store = await openSessionStore({ stateDir: dir, env: {}, logger });
      expect(store.persistent).toBe(false);
      expect(logger.warnings()).toHaveLength(1);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('uses $XDG_STATE_HOME/openai-acp/sessions when no directory is given, creating it', async () => {
    const xdg = makeTempDir();
    const logger = captureLogger();
    const store = await openSessionStore({ stateDir: '  ', env: { XDG_STATE_HOME: xdg, HOME: '/nonexistent' }, logger });
    expect(store.dir).toBe(join(xdg, 'openai-acp', 'sessions'));
    expect(existsSync(store.dir!)).toBe(true);
    expect(logger.records).toEqual([]);
  });

  it('uses ~/.local/state/openai-acp/sessions when XDG_STATE_HOME is empty, and expands ~/ in the setting', async () => {
    const home = makeTempDir();
    const byDefault = await openSessionStore({ stateDir: undefined, env: { XDG_STATE_HOME: '', HOME: home }, logger: captureLogger() });
    expect(byDefault.dir).toBe(join(home, '.local', 'state', 'openai-acp', 'sessions'));
    const tilde = await openSessionStore({ stateDir: '~/my-sessions', env: { HOME: home }, logger: captureLogger() });
    expect(tilde.dir).toBe(join(home, 'my-sessions'));
    expect(existsSync(join(home, 'my-sessions'))).toBe(true);
  });
});

describe('defaultStateDir', () => {
  it.each([
    [{ XDG_STATE_HOME: '/x/state', HOME: '/home/u' }, '/x/state/openai-acp/sessions'],
    [{ XDG_STATE_HOME: '', HOME: '/home/u' }, '/home/u/.local/state/openai-acp/sessions'],
    [{ HOME: '/home/u' }, '/home/u/.local/state/openai-acp/sessions'],
    [{ XDG_STATE_HOME: 'relative/state', HOME: '/home/u' }, '/home/u/.local/state/openai-acp/sessions'],
  ])('%j → %s', (env, expected) => {
    expect(defaultStateDir(env)).toBe(expected);
  });
});

describe('titleFromPrompt', () => {
  it("skips the context a client shares as text (CodeCompanion's AGENTS.md, a shared file) and embedded resources: the user's words", () => {
    const agentsMd = { type: 'text' as const, text: 'Sharing `AGENTS.md`:\n\n---\n# Rules\nUse tabs.\n---' };
    const file = { type: 'text' as const, text: 'Sharing the following file as context: src/a.ts' };
    const embedded = { type: 'resource' as const, resource: { uri: 'file:///w/AGENTS.md', text: '# Rules', mimeType: 'text/markdown' } };
    expect(titleFromPrompt([agentsMd, file, embedded, { type: 'text', text: 'Why does the build fail?' }])).toBe('Why does the build fail?');
    // Nothing but shared context: titled by it rather than left untitled.
    expect(titleFromPrompt([agentsMd])).toBe('Sharing `AGENTS.md`: --- # Rules Use tabs. ---');
  });

  it('uses the text blocks, whitespace collapsed', () => {
    expect(titleFromPrompt([{ type: 'text', text: '  Fix the\n\tbuild   please ' }])).toBe('Fix the build please');
    expect(
      titleFromPrompt([
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'text', text: 'Explain' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'text', text: 'this\n' },
      ]),
    ).toBe('Explain this');
  });

  it('is undefined without text', () => {
    expect(titleFromPrompt([])).toBeUndefined();
    expect(titleFromPrompt([{ type: 'text', text: ' \n\t ' }])).toBeUndefined();
    expect(titleFromPrompt([{ type: 'resource_link', uri: 'file:///a', name: 'a' }])).toBeUndefined();
  });

  it('keeps exactly 80 characters whole', () => {
    const text = 'a'.repeat(80);
    expect(titleFromPrompt([{ type: 'text', text }])).toBe(text);
  });

  it('cuts a long text at a word boundary with an ellipsis', () => {
    const words = 'The quick brown fox jumps over the lazy dog and keeps running far beyond the hills to the sea';
    const title = titleFromPrompt([{ type: 'text', text: words }])!;
    expect(title).toBe('The quick brown fox jumps over the lazy dog and keeps running far beyond the…');
    expect([...title].length).toBeLessThanOrEqual(80);
  });

  it('cuts mid-word when there is no boundary in the second half, without splitting a surrogate pair', () => {
    const title = titleFromPrompt([{ type: 'text', text: `go ${'😀'.repeat(100)}` }])!;
    expect([...title]).toHaveLength(80);
    expect(title.endsWith('😀…')).toBe(true);
    expect(title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
