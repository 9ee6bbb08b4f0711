import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import setup, { changes, listing, realDirs } from './real-dirs-guard.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'openai-acp-guard-'));
  made.push(dir);
  return dir;
};

it('finds the session, config and cache directories the agent would use', () => {
  expect(realDirs({ HOME: '/h' })).toEqual(['/h/.local/state/openai-acp/sessions', '/h/.config/openai-acp', '/h/.cache/openai-acp']);
  expect(realDirs({ HOME: '/h', XDG_STATE_HOME: '/s', XDG_CONFIG_HOME: '/c', XDG_CACHE_HOME: '/k', OPENAI_ACP_STATE_DIR: '~/sessions' })).toEqual([
    '/s/openai-acp/sessions',
    '/c/openai-acp',
    '/k/openai-acp',
    '/h/sessions',
  ]);
  expect(realDirs({ HOME: '/h', OPENAI_ACP_STATE_DIR: 'off' })).toHaveLength(3);
});

it('a missing directory lists as empty, and one made during the run counts as a change', () => {
  const root = temp();
  const dir = join(root, 'sessions');
  const before = listing(dir);
  expect(before.size).toBe(0);
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.jsonl'), 'x');
  expect(changes(before, listing(dir))).toEqual([`added ${join(dir, 'a.jsonl')}`]);
});

it('sees a file appended to, and one removed', () => {
  const dir = temp();
  writeFileSync(join(dir, 'a.jsonl'), 'x');
  writeFileSync(join(dir, 'b.jsonl'), 'y');
  utimesSync(join(dir, 'a.jsonl'), 1, 1);
  const before = listing(dir);
  writeFileSync(join(dir, 'a.jsonl'), 'xz');
  rmSync(join(dir, 'b.jsonl'));
  expect(changes(before, listing(dir)).sort()).toEqual([`changed ${join(dir, 'a.jsonl')}`, `removed ${join(dir, 'b.jsonl')}`]);
  expect(changes(listing(dir), listing(dir))).toEqual([]);
});

it('the teardown throws, naming the file, when the real state directory changed', () => {
  const home = temp();
  const saved = {
    HOME: process.env.HOME,
    XDG_STATE_HOME: process.env.XDG_STATE_HOME,
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
    OPENAI_ACP_STATE_DIR: process.env.OPENAI_ACP_STATE_DIR,
  };
  try {
    process.env.HOME = home;
    for (const key of ['XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'OPENAI_ACP_STATE_DIR'] as const) delete process.env[key];
    const teardown = setup();
    expect(() => teardown()).not.toThrow();
    const sessions = join(home, '.local', 'state', 'openai-acp', 'sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 's.jsonl'), '{}\n');
    expect(() => teardown()).toThrow(/s\.jsonl/);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});
