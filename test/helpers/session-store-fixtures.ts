/**
 * Shared pieces of the session store tests: a logger that records what it was asked to log,
 * temporary directories under os.tmpdir() removed after each test, and record builders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../src/shared/log.js';
import type { SessionRecord, TurnRecord } from '../../src/sessions/session-records.js';

type MetaRecord = Extract<SessionRecord, { type: 'meta' }>;
type LogFields = Parameters<Logger['info']>[1];

/** One call made to a {@link CapturingLogger}. */
interface LoggedRecord {
  level: 'error' | 'warn' | 'info' | 'debug';
  msg: string;
  fields: LogFields | undefined;
}

/** A Logger (level debug) that keeps every call in `records`. */
export interface CapturingLogger extends Logger {
  readonly records: LoggedRecord[];
  /** The `warn` calls only. */
  warnings(): LoggedRecord[];
}

export function captureLogger(): CapturingLogger {
  const records: LoggedRecord[] = [];
  const at = (level: LoggedRecord['level']) => (msg: string, fields?: LogFields) => void records.push({ level, msg, fields });
  return {
    level: 'debug',
    records,
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    warnings: () => records.filter((r) => r.level === 'warn'),
  };
}

/** Temporary directories made by {@link makeTempDir}; remove them with {@link removeTempDirs}. */
const made: string[] = [];

/** A fresh directory under os.tmpdir(). */
export function makeTempDir(prefix = 'openai-acp-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory {@link makeTempDir} made (call from afterEach/afterAll). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** ISO time `seconds` after 2026-01-01T00:00:00Z. */
export function isoAt(seconds: number): string {
  return new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();
}

/** A turn record whose text names `label`. */
export function turn(label: string, at = isoAt(0), extra: Partial<TurnRecord> = {}): TurnRecord {
  return {
    type: 'turn',
    at,
    prompt: [{ type: 'text', text: `question ${label}` }],
    assistant: `answer ${label}`,
    reasoning: `thinking ${label}`,
    stopReason: 'end_turn',
    ...extra,
  };
}

/** A meta record. */
export function meta(at: string, fields: Omit<MetaRecord, 'type' | 'at'>): MetaRecord {
  return { type: 'meta', at, ...fields };
}

/** What the multi-process driver (`session-store-driver.ts`) is told to do. */
export interface DriverOptions {
  dir: string;
  sessionId: string;
  /** Distinguishes this writer's records. */
  tag: string;
  count: number;
  /** `mixed`: 0 to 20 kB of text per record; `large`: 64 to 128 kB (many pages per write). */
  sizes: 'mixed' | 'large';
  /** How long to wait for a session another live process holds, in ms. @defaultValue the store's */
  waitMs?: number;
}

/** The assistant text of record `i` from writer `tag`: self-describing, so a reader can check it. */
export function driverText(tag: string, i: number, sizes: DriverOptions['sizes']): string {
  const length = sizes === 'large' ? 64_000 + ((i * 7919) % 64_000) : (i * 7919) % 20_000;
  const head = `${tag}:${i}:`;
  return head + String.fromCharCode(97 + (i % 26)).repeat(length);
}
