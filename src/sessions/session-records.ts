/**
 * Session records: the types of the lines of a session file, their validation, and the parsing
 * of a whole file into a {@link StoredSession} or, cheaply, a {@link SessionSummary}. Pure (no
 * I/O): shared by the file and memory stores of `session-store.ts`, so both behave the same. The
 * file format itself is described in `session-store.ts`.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';

/** A completed (or cancelled/failed-with-partial-output) prompt turn. */
export interface TurnRecord {
  type: 'turn';
  /** When the turn ended, ISO 8601. */
  at: string;
  /** The ACP prompt blocks as received. */
  prompt: ContentBlock[];
  /** The assistant's text ('' when none). */
  assistant: string;
  /** The reasoning text ('' when none). */
  reasoning: string;
  /** The ACP stop reason the turn ended with (`end_turn`, `cancelled`, …). */
  stopReason: string;
  /** Token counts of the turn. */
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
  /**
   * The answers of this turn that called tools, in order, each with the results of its calls;
   * `assistant` and `reasoning` are then the last answer's (the one that called no tool).
   */
  steps?: StepRecord[];
}

/** One model answer that called tools, and what each call gave back. */
export interface StepRecord {
  /** The answer's text ('' when none). */
  text: string;
  /** The answer's reasoning ('' when none). */
  reasoning: string;
  /** The calls as the model made them: `id` is the `tool_call_id` the model sees. */
  toolCalls: { id: string; name: string; arguments: string; extra?: Record<string, unknown> }[];
  /** One result per call, in the same order. */
  results: ToolResultRecord[];
}

/** What one tool call gave back, for the model (`forModel`) and for a replay to the client. */
export interface ToolResultRecord {
  /** The model-facing `tool_call_id` (the call's `id`). */
  id: string;
  /** The ACP `toolCallId` the client saw. */
  toolCallId: string;
  title: string;
  /** ACP `ToolKind`. */
  kind: string;
  status: 'completed' | 'failed';
  rawInput?: unknown;
  /** ACP `ToolCallContent[]` as shown (terminals replaced by their output text). */
  content: unknown[];
  locations?: unknown[];
  /** The `tool` message content the model was sent. */
  forModel: string;
}

/** Session metadata change: title, model, other config options (merged over earlier meta records). */
export interface MetaRecord {
  type: 'meta';
  at: string;
  title?: string;
  model?: string;
  /** Config option values by option id; merged key by key over earlier ones. */
  options?: Record<string, string>;
}

/** `/clear`: turns before this are kept in the file but no longer sent to the model. */
export interface ClearRecord {
  type: 'clear';
  at: string;
}

/** `/compact`: a model-written summary that replaces every earlier turn in what is sent. */
export interface CompactRecord {
  type: 'compact';
  at: string;
  summary: string;
}

/** One line of a session file after the header. */
export type SessionRecord = TurnRecord | MetaRecord | ClearRecord | CompactRecord;

/** A session as loaded: the header, the meta records merged, and the history. */
export interface StoredSession {
  sessionId: string;
  cwd: string;
  createdAt: string;
  /** `at` of the last record in file order, or `createdAt` when there is none. */
  updatedAt: string;
  /** The latest meta `title`. */
  title?: string;
  /** The latest meta `model`. */
  model?: string;
  /** Every meta `options`, later keys over earlier ones. */
  options: Record<string, string>;
  /** turn, clear and compact records in file order */
  records: Array<TurnRecord | ClearRecord | CompactRecord>;
}

/** What `session/list` shows of a session. */
export interface SessionSummary {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || typeof v === 'string';
const optNumber = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
const isStep = (step: unknown) =>
  isObject(step) &&
  typeof step.text === 'string' &&
  typeof step.reasoning === 'string' &&
  Array.isArray(step.toolCalls) &&
  step.toolCalls.every((c) => isObject(c) && typeof c.id === 'string' && typeof c.name === 'string' && typeof c.arguments === 'string') &&
  Array.isArray(step.results) &&
  // One result per call, same order: the model is sent a tool message per tool_call_id (providers refuse a call without one).
  step.results.length === step.toolCalls.length &&
  step.results.every(
    (r, i) =>
      isObject(r) &&
      r.id === (step.toolCalls as Json[])[i]?.id &&
      typeof r.toolCallId === 'string' &&
      (r.status === 'completed' || r.status === 'failed') &&
      typeof r.forModel === 'string' &&
      Array.isArray(r.content),
  );

/**
 * `value` as a {@link SessionRecord} when it is one (extra fields kept), else undefined. Checks
 * the fields each type requires and the types of the optional ones.
 */
export function parseRecord(value: unknown): SessionRecord | undefined {
  if (!isObject(value) || typeof value.at !== 'string') return undefined;
  const v = value;
  switch (v.type) {
    case 'turn': {
      const usage = v.usage;
      const ok =
        Array.isArray(v.prompt) &&
        v.prompt.every((b) => isObject(b) && typeof b.type === 'string') &&
        typeof v.assistant === 'string' &&
        typeof v.reasoning === 'string' &&
        typeof v.stopReason === 'string' &&
        (usage === undefined || (isObject(usage) && optNumber(usage.inputTokens) && optNumber(usage.outputTokens) && optNumber(usage.totalTokens))) &&
        (v.steps === undefined || (Array.isArray(v.steps) && v.steps.every(isStep)));
      return ok ? (v as unknown as TurnRecord) : undefined;
    }
    case 'meta': {
      const options = v.options;
      const ok = optString(v.title) && optString(v.model) && (options === undefined || (isObject(options) && Object.values(options).every((o) => typeof o === 'string')));
      return ok ? (v as unknown as MetaRecord) : undefined;
    }
    case 'clear':
      return v as unknown as ClearRecord;
    case 'compact':
      return typeof v.summary === 'string' ? (v as unknown as CompactRecord) : undefined;
    default:
      return undefined;
  }
}

/** A session file's header line, as far as loading needs it. */
export interface SessionHeader {
  cwd: string;
  createdAt: string;
}

/**
 * Receives each problem found while parsing: the file (or `memory:<id>`), its 1-based line number
 * (0: the file as a whole), and what is wrong. The store logs it (once per file and line).
 */
export type Warn = (file: string, line: number, msg: string) => void;

const NO_HEADER = 'session file does not start with a valid header; ignoring the session';
const EMPTY = 'session file is empty; ignoring the session';
const CORRUPT = 'skipping a corrupt session record';
const CORRUPT_LAST = 'skipping a torn or corrupt last session record';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseHeader(value: unknown): SessionHeader | undefined {
  if (!isObject(value) || value.type !== 'session' || typeof value.cwd !== 'string' || typeof value.createdAt !== 'string') return undefined;
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
    const value = parseJson(line);
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
    else warn(file, i + 1, i === lines.length - 1 ? CORRUPT_LAST : CORRUPT);
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
  const header = parseHeader(parseJson(text));
  if (!header) return void warn(file, lineNumber(start), NO_HEADER);
  const body = lineEnd(start) + 1;

  let title: string | undefined;
  for (let at = bytes.indexOf(META_MARK, body); at !== -1; ) {
    const lineStart = bytes.lastIndexOf(NL, at) + 1;
    const end = lineEnd(at);
    const record = parseRecord(parseJson(bytes.toString('utf8', lineStart, end)));
    if (!record) warn(file, lineNumber(lineStart), end === bytes.length ? CORRUPT_LAST : CORRUPT);
    else if (record.type === 'meta' && record.title !== undefined) title = record.title;
    at = bytes.indexOf(META_MARK, end);
  }

  let updatedAt = header.createdAt;
  for (let end = bytes.length; end >= body; ) {
    const lineStart = end === 0 ? 0 : bytes.lastIndexOf(NL, end - 1) + 1;
    const line = bytes.toString('utf8', lineStart, end);
    if (line.trim() !== '') {
      const record = parseRecord(parseJson(line));
      if (record) {
        updatedAt = record.at;
        break;
      }
      warn(file, lineNumber(lineStart), end === bytes.length ? CORRUPT_LAST : CORRUPT);
    }
    end = lineStart - 1;
  }
  const { cwd } = header;
  return title === undefined ? { sessionId, cwd, updatedAt } : { sessionId, cwd, title, updatedAt };
}

/**
 * A parsed session file as a {@link StoredSession}: the meta records merged (later values over
 * earlier, `options` key by key), the other records kept in file order, `updatedAt` the `at` of
 * the last record (or `createdAt` when there is none).
 */
export function toStoredSession(sessionId: string, parsed: { header: SessionHeader; records: SessionRecord[] }): StoredSession {
  const session: StoredSession = { sessionId, cwd: parsed.header.cwd, createdAt: parsed.header.createdAt, updatedAt: parsed.header.createdAt, options: {}, records: [] };
  for (const record of parsed.records) {
    session.updatedAt = record.at;
    if (record.type === 'meta') {
      if (record.title !== undefined) session.title = record.title;
      if (record.model !== undefined) session.model = record.model;
      if (record.options) Object.assign(session.options, record.options);
    } else {
      session.records.push(record);
    }
  }
  return session;
}
