/**
 * A small leveled logger for stderr (stdout carries only JSON-RPC). Every record is one line, and
 * secrets (the API key, secret header values) are replaced by `***` wherever they appear.
 */
import { escapeControls, redactTextWithForms, secretForms } from './redact.js';

/** Log verbosity, most severe first; a logger at `info` drops only `debug` records. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * How a record is written: `text` is `openai-acp <level>: <message> {fields}`; `json` is one JSON
 * object per line, `{"time", "level", "message", ...fields}` (for log collectors).
 */
export type LogFormat = 'text' | 'json';

/** The accepted values of {@link LogFormat}. */
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** Fields attached to a record, rendered as one JSON object after the message. */
type LogFields = Record<string, unknown>;

/** A leveled logger; records above {@link Logger.level} are dropped. Logging never throws. */
export interface Logger {
  /** Something failed and the user should know. */
  error(msg: string, fields?: LogFields): void;
  /** Something went wrong but was handled (a retry, a fallback). */
  warn(msg: string, fields?: LogFields): void;
  /** Start-up and other once-per-session facts. */
  info(msg: string, fields?: LogFields): void;
  /** Protocol and request detail for troubleshooting. */
  debug(msg: string, fields?: LogFields): void;
  /** The most verbose level written. */
  readonly level: LogLevel;
  /** Redact these strings too from now on (e.g. keys of a configuration read again). */
  addSecrets?(secrets: readonly string[]): void;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** The most verbose level written: `error` < `warn` < `info` < `debug`. */
  level: LogLevel;
  /** Strings to redact; those shorter than 4 characters are ignored. Default none. */
  secrets?: string[];
  /** Receives each rendered line, ending in `\n`. Default: `process.stderr.write`. */
  write?: (line: string) => void;
  /** Line format. @defaultValue `text` */
  format?: LogFormat | undefined;
  /** Clock for the `time` of JSON records (tests). @defaultValue `() => new Date()` */
  now?: (() => Date) | undefined;
}

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** JSON of `fields`, tolerating cycles, bigints, errors and throwing `toJSON`s; '' when empty. */
function renderFields(fields: LogFields | undefined): string {
  if (!fields || Object.keys(fields).length === 0) return '';
  const ancestors: unknown[] = [];
  try {
    return JSON.stringify(fields, function (this: unknown, _key: string, value: unknown) {
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
      if (typeof value !== 'object' || value === null) return value;
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(value)) return '[Circular]';
      ancestors.push(value);
      return value;
    });
  } catch {
    return '{"fields":"[unserializable]"}';
  }
}

/**
 * One JSON record: `time` (ISO 8601, UTC), `level`, `message`, then the fields (a field named
 * like one of those three is written as `field.<name>`). Every string is redacted before it is
 * serialized, so a secret never shows even JSON-escaped; cycles, bigints and errors are handled as
 * in text lines.
 */
function renderJson(time: Date, level: LogLevel, msg: string, fields: LogFields | undefined, forms: readonly string[]): string {
  const record: Record<string, unknown> = { time: time.toISOString(), level, message: msg };
  for (const [name, value] of Object.entries(fields ?? {})) record[Object.hasOwn(record, name) ? `field.${name}` : name] = value;
  const clean = (value: string) => redactTextWithForms(value, forms);
  const ancestors: object[] = [];
  /** A JSON-ready copy: strings (keys included) redacted, cycles cut, bigints and errors as text. */
  const sanitize = (value: unknown): unknown => {
    if (typeof value === 'string') return clean(value);
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return clean(value.stack ?? `${value.name}: ${value.message}`);
    if (typeof value !== 'object' || value === null) return value;
    if (ancestors.includes(value)) return '[Circular]';
    const json = (value as { toJSON?: unknown }).toJSON;
    if (typeof json === 'function') return sanitize(json.call(value));
    ancestors.push(value);
    try {
      if (Array.isArray(value)) return value.map(sanitize);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), sanitize(v)]));
    } finally {
      ancestors.pop();
    }
  };
  try {
    return JSON.stringify(sanitize(record));
  } catch {
    return JSON.stringify({ time: time.toISOString(), level, message: clean(msg), fields: '[unserializable]' });
  }
}

/**
 * Creates a logger writing one line per record: `openai-acp <level>: <msg> {json fields}\n`, or
 * with `format: 'json'` one JSON object `{"time","level","message",...fields}\n`.
 * Records above `level` are dropped; control characters in `msg` are escaped (`\n`), and every
 * occurrence of each secret (length >= 4, raw or as escaped in the line) becomes `***` — never a
 * partial secret. A failing `write` (closed stderr) is ignored.
 */
export function createLogger(options: LoggerOptions): Logger {
  const { level } = options;
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  let known = [...(options.secrets ?? [])];
  // The secrets' forms are worked out when secrets are added, not for every line.
  let forms = secretForms(known);
  const addSecrets = (secrets: readonly string[]) => {
    known = [...new Set([...known, ...secrets])];
    forms = secretForms(known);
  };
  const record =
    (recordLevel: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (RANK[recordLevel] > RANK[level]) return;
      try {
        if (options.format === 'json') {
          // The whole line is redacted again: no secret survives even across JSON syntax.
          write(`${redactTextWithForms(renderJson((options.now ?? (() => new Date()))(), recordLevel, String(msg), fields, forms), forms)}\n`);
          return;
        }
        const json = renderFields(fields);
        const line = `openai-acp ${recordLevel}: ${escapeControls(String(msg))}${json ? ` ${json}` : ''}`;
        write(`${redactTextWithForms(line, forms)}\n`);
      } catch {
        // Logging must never break the agent.
      }
    };
  return Object.freeze({ level, error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug'), addSecrets });
}
