import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

it("points HOME at a home of the run's own, never the user's, and the teardown throws, naming the file, when a test wrote there", () => {
  const userHome = process.env.HOME;
  const teardown = setup();
  const runHome = process.env.HOME!;
  try {
    expect(runHome).not.toBe(userHome);
    expect(runHome).toContain('openai-acp-test-run-');
    expect(realDirs(process.env).every((dir) => dir.startsWith(runHome))).toBe(true);
    const sessions = join(runHome, '.local', 'state', 'openai-acp', 'sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 's.jsonl'), '{}\n');
  } finally {
    expect(() => teardown()).toThrow(/s\.jsonl/);
  }
  // The environment is the user's again, and the run's home is gone.
  expect(process.env.HOME).toBe(userHome);
  expect(existsSync(runHome)).toBe(false);
});

it('the teardown passes when nothing was written', () => {
  const userHome = process.env.HOME;
  const teardown = setup();
  expect(() => teardown()).not.toThrow();
  expect(process.env.HOME).toBe(userHome);
});
