/**
 * Reading a session's text: the header and valid records of a whole file into a
 * {@link StoredSession}, or cheaply (mostly without parsing) into a {@link SessionSummary}. Pure
 * (no I/O): shared by the file and memory stores of `session-store.ts`, so both behave the same.
 */
import type { SessionRecord, SessionSummary, StoredSession } from './session-records.js';
import { parseRecord } from './parse-record.js';
import { isRecord, parseJsonOrUndefined } from '../shared/json-value.js';

/** A session file's header line, as far as loading needs it. */
export interface SessionHeader {
  cwd: string;
  createdAt: string;
}

/**
 * Receives each problem found while parsing: the file (or `memory:<id>`), its 1-based line number
 * (0: the file as a whole), what is wrong, and the log level it deserves (`debug` for a saved MCP
 * tool list, which only costs a server's prefix cache once; default `warn`). The store logs it
 * (once per file and line).
 */
export type Warn = (file: string, line: number, msg: string, level?: 'warn' | 'debug') => void;

const NO_HEADER = 'session file does not start with a valid header; ignoring the session';
const EMPTY = 'session file is empty; ignoring the session';
const CORRUPT = 'skipping a corrupt session record';
const CORRUPT_LAST = 'skipping a torn or corrupt last session record';
const CORRUPT_TOOLS = 'skipping a saved MCP tool list that does not read back; the tools are offered as the servers list them';

/** Warns about the line at `line` of `file` (`value` as parsed, `last`: the file's last line) that is no record. */
function warnBad(warn: Warn, file: string, line: number, value: unknown, last: boolean): void {
  if (isRecord(value) && value.type === 'mcp_tools') warn(file, line, CORRUPT_TOOLS, 'debug');
  else warn(file, line, last ? CORRUPT_LAST : CORRUPT);
}

function parseHeader(value: unknown): SessionHeader | undefined {
  if (!isRecord(value) || value.type !== 'session' || typeof value.cwd !== 'string' || typeof value.createdAt !== 'string') return undefined;
  return { cwd: value.cwd, createdAt: value.createdAt };
}

/**
 * The header and valid records of a session file's text; undefined (after a warning) when the
 * first non-blank line is not a header. Blank lines are ignored; other bad lines are skipped
 * with a warning.
 */
export function parseSessionText(text: string, file: string, warn: Warn): { header: SessionHeader; records: SessionRecord[] } | undefined {
  const lines = text.split('\n');
  let header: SessionHeader | undefined;
  const records: SessionRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const value = parseJsonOrUndefined(line);
    if (header === undefined) {
      header = parseHeader(value);
      if (header === undefined) {
        warn(file, i + 1, NO_HEADER);
        return undefined;
      }
      continue;
    }
    const record = parseRecord(value);
    if (record) records.push(record);
    else warnBad(warn, file, i + 1, value, i === lines.length - 1);
  }
  if (header === undefined) warn(file, 1, EMPTY);
  return header && { header, records };
}

const NL = 0x0a;
const META_MARK = Buffer.from('"type":"meta"');

/**
 * The summary of a session file's bytes, the same as {@link parseSessionText} then
 * {@link toStoredSession} would give, without parsing (or even decoding) most turn records: only
 * the header, the lines that contain `"type":"meta"` (a title can only come from those: inside a
 * JSON string the quotes would be escaped), and the last lines back to the last valid record.
 * Warns about the bad lines it looks at.
 */
export function summarizeSessionBytes(sessionId: string, bytes: Buffer, file: string, warn: Warn): SessionSummary | undefined {
  const lineNumber = (at: number) => {
    let n = 1;
    for (let i = bytes.indexOf(NL); i !== -1 && i < at; i = bytes.indexOf(NL, i + 1)) n++;
    return n;
  };
  const lineEnd = (start: number) => {
    const end = bytes.indexOf(NL, start);
    return end === -1 ? bytes.length : end;
  };
  let start = 0;
  let text = '';
  for (; start <= bytes.length; start = lineEnd(start) + 1) {
    text = bytes.toString('utf8', start, lineEnd(start));
    if (text.trim() !== '') break;
  }
  if (start > bytes.length) return void warn(file, 1, EMPTY);
  const header = parseHeader(parseJsonOrUndefined(text));
  if (!header) return void warn(file, lineNumber(start), NO_HEADER);
  const body = lineEnd(start) + 1;

  let title: string | undefined;
  for (let at = bytes.indexOf(META_MARK, body); at !== -1; ) {
    const lineStart = bytes.lastIndexOf(NL, at) + 1;
    const end = lineEnd(at);
    const record = parseRecord(parseJsonOrUndefined(bytes.toString('utf8', lineStart, end)));
    if (!record) warn(file, lineNumber(lineStart), end === bytes.length ? CORRUPT_LAST : CORRUPT);
    else if (record.type === 'meta' && record.title !== undefined) title = record.title;
    at = bytes.indexOf(META_MARK, end);
  }

  let updatedAt = header.createdAt;
  for (let end = bytes.length; end >= body; ) {
    const lineStart = end === 0 ? 0 : bytes.lastIndexOf(NL, end - 1) + 1;
    const line = bytes.toString('utf8', lineStart, end);
    if (line.trim() !== '') {
      const value = parseJsonOrUndefined(line);
      const record = parseRecord(value);
      if (record) {
        updatedAt = record.at;
        break;
      }
      warnBad(warn, file, lineNumber(lineStart), value, end === bytes.length);
    }
    end = lineStart - 1;
  }
  const { cwd } = header;
  return title === undefined ? { sessionId, cwd, updatedAt } : { sessionId, cwd, title, updatedAt };
}

/**
 * A parsed session file as a {@link StoredSession}: the meta records merged (later values over
 * earlier, `options` key by key), the latest `mcp_tools` record's tools kept, the other records kept in file order (a turn record repeating
 * the id of the turn just before it replaces that one), `updatedAt` the `at` of the last record
 * (or `createdAt` when there is none).
 */
export function toStoredSession(sessionId: string, parsed: { header: SessionHeader; records: SessionRecord[] }): StoredSession {
  const session: StoredSession = {
    sessionId,
    cwd: parsed.header.cwd,
    createdAt: parsed.header.createdAt,
    updatedAt: parsed.header.createdAt,
    options: {},
    records: [],
  };
  for (const record of parsed.records) {
    session.updatedAt = record.at;
    if (record.type === 'meta') {
      if (record.title !== undefined) session.title = record.title;
      if (record.model !== undefined) session.model = record.model;
      if (record.options) Object.assign(session.options, record.options);
    } else if (record.type === 'mcp_tools') {
      session.mcpTools = record.tools;
    } else if (record.type === 'undo') {
      // The latest turn still in the conversation is taken out.
      const index = session.records.findLastIndex((r) => r.type === 'turn');
      if (index !== -1) session.records.splice(index, 1);
    } else {
      // A turn saved again under its id (its prompt as it started, then the whole turn) stands in
      // the place of the first: turns are saved one at a time, so that one is the last record.
      const last = session.records.at(-1);
      if (record.type === 'turn' && record.id !== undefined && last?.type === 'turn' && last.id === record.id)
        session.records[session.records.length - 1] = record;
      else session.records.push(record);
    }
  }
  return session;
}

/**
 * Whether a stored session holds nothing worth keeping: no turn, clear or compact record left
 * (a turn taken out by an `undo` counts as none), no title, model or option set.
 * Pure.
 */
export function isBlankSession(session: StoredSession): boolean {
  return session.records.length === 0 && session.title === undefined && session.model === undefined && Object.keys(session.options).length === 0;
}
