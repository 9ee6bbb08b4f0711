/**
 * The one place where failures become the user's words: a provider failure's cause, server, status
 * and what to do, and a request the context window cannot take. They are the message of the
 * JSON-RPC error answering a failed `session/prompt` (its `data` holds the facts of
 * `failure-facts.ts`, `app/prompt-failure.ts`).
 */
import {
  INTERNAL_ERROR_CODE,
  type ProviderError,
  ProviderHttpError,
  ProviderConnectionError,
  ProviderProtocolError,
  ProviderTimeoutError,
  ProviderLoadingError,
  ProviderReportedError,
} from './errors.js';
import { ProviderAuthError } from './authorize.js';
import { redactText } from '../shared/redact.js';
import { ProviderMemoryError } from './native-chat.js';
import { grouped } from '../shared/grouped.js';

/** The settings a message may point the user at. */
export interface ErrorContext {
  /** The model the request asked for. */
  model: string;
  /** Retries made before giving up. */
  retries: number;
  /** Whether the request carried a key; `false` turns a 401/403 into "the endpoint needs a key". @defaultValue unknown (treated as true) */
  hasKey?: boolean | undefined;
  /**
   * The base URL the user set (`OPENAI_BASE_URL`, a config file's `baseUrl`), named when nothing
   * listens there; the URL tried is named too when it differs (Ollama's `/api/chat`). @defaultValue the URL tried
   */
  baseUrl?: string | undefined;
  /** After a 404: the base URL with `/v1` added, when that one lists models (see `failure-hints.ts`). */
  missingV1?: string | undefined;
  /**
   * The endpoint's configured secrets (API key, header and query values; `secretsOf`), replaced by
   * `***` wherever they appear (providers echo keys in error bodies). @defaultValue none
   */
  secrets?: readonly string[] | undefined;
}

/** Ollama's answer for a model it does not have: `model "x" not found, try pulling it first` (server/routes.go). */
const MODEL_NOT_PULLED = /not found, try pulling it/i;

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i;

/**
 * The user-facing explanation of a provider failure. Names the HTTP status when there was one,
 * the URL, the setting to change, and the provider's own message. Never contains a configured
 * secret nor a secret-looking query value (the whole text goes through `redactText`), nor an
 * internal error code of the HTTP stack ({@link withoutInternalCodes}; system and TLS codes such
 * as `ECONNREFUSED` stay, they say what happened).
 */
export function describeProviderError(error: ProviderError, context: ErrorContext): string {
  return redactText(withoutInternalCodes(explain(error, context)), context.secrets ?? []);
}

const INTERNAL_CODE_IN_TEXT = new RegExp(` ?\\(${INTERNAL_ERROR_CODE}\\)`, 'g');

/**
 * Without ` (UND_ERR_SOCKET)`, ` (ERR_STREAM_PREMATURE_CLOSE)`, ` (ERR_HTTP_…)`: codes of the HTTP
 * stack's internals, meaningless to a user (TLS codes such as `ERR_TLS_CERT_ALTNAME_INVALID` stay).
 */
function withoutInternalCodes(text: string): string {
  return text.replace(INTERNAL_CODE_IN_TEXT, '');
}

function explain(error: ProviderError, context: ErrorContext): string {
  const retried = context.retries > 0 ? ` after ${context.retries} ${context.retries === 1 ? 'retry' : 'retries'}` : '';
  if (error instanceof ProviderMemoryError) {
    const window = error.numCtx ? `a ${grouped(error.numCtx)}-token window` : 'its window';
    const smaller = error.numCtx ? ` such as ${Math.max(2048, 2 ** Math.floor(Math.log2(error.numCtx / 2)))}` : '';
    return (
      `The server has not enough memory to run "${error.model}" with ${window} (HTTP ${error.status} at ${error.url}). ` +
      `Set OPENAI_ACP_OLLAMA_NUM_CTX to a smaller value${smaller}, or pick a smaller model.\n` +
      `The provider said: ${error.providerMessage ?? error.body}`
    );
  }
  if (error instanceof ProviderHttpError) {
    const said = error.providerMessage ? `\nThe provider said: ${error.providerMessage}` : '';
    const status = `HTTP ${error.status}`;
    if (error.status === 404 && error.providerMessage && MODEL_NOT_PULLED.test(error.providerMessage)) {
      return `The model "${context.model}" is not on the server at ${error.url}: run \`ollama pull ${context.model}\`, or pick another model.${said}`;
    }
    if ((error.status === 401 || error.status === 403) && context.hasKey === false) {
      return (
        `${status} at ${error.url}: the endpoint needs a key; OPENAI_API_KEY is not set. Set it (for a ` +
        `config-file provider, the variable its apiKeyEnv names).${said}`
      );
    }
    if (error.status === 404 && context.missingV1) {
      return (
        `Not found (${status}) at ${error.url}, but ${context.missingV1}/models answers: add /v1 to ` +
        `OPENAI_BASE_URL (OPENAI_BASE_URL=${context.missingV1}).${said}`
      );
    }
    if (error.status >= 300 && error.status < 400) {
      const location = error.headers.get('location');
      const target = location ? ` to ${resolveLocation(location, error.url)}` : '';
      return (
        `The endpoint redirected the request (${status})${target} at ${error.url}; redirects are not followed. ` +
        `Set OPENAI_BASE_URL to the API's own address.${said}`
      );
    }
    if (error.status === 401 || error.status === 403) {
      return (
        `The endpoint refused the API key (${status}) at ${error.url}. Check OPENAI_API_KEY (and OPENAI_HEADERS ` +
        `if the endpoint wants another header such as Azure's api-key).${said}`
      );
    }
    if (error.status === 404) {
      return `The model "${context.model}" or the endpoint was not found (${status}) at ${error.url}. Check OPENAI_MODEL and OPENAI_BASE_URL.${said}`;
    }
    if (error.status === 429) {
      return `Rate limited by the endpoint (${status})${retried} at ${error.url}. Wait a moment and try again, or use a key with a higher limit.${said}`;
    }
    if (error.status >= 500) {
      return `The endpoint had a server error (${status})${retried} at ${error.url}. Try again later.${said}`;
    }
    return `The endpoint rejected the request (${status}) at ${error.url}.${said}`;
  }
  if (error instanceof ProviderConnectionError) {
    const code = error.code ?? '';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return `Cannot resolve the host of ${error.url} (${code})${retried}. Check OPENAI_BASE_URL and your network or proxy (HTTPS_PROXY).`;
    }
    if (TLS_CODES.test(code)) {
      return `TLS failed for ${error.url} (${code}). For a private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file.`;
    }
    if (error.notRunning) {
      const set = context.baseUrl ?? error.url;
      const tried = sameBase(set, error.url) ? '' : ` (tried ${error.url})`;
      return `Nothing is listening at ${set}${tried}: the connection was refused (${code}). Start the server, or set OPENAI_BASE_URL to where it listens.`;
    }
    return `Cannot connect to ${error.url}${code ? ` (${code})` : ''}${retried}. Is the server running? Check OPENAI_BASE_URL.`;
  }
  if (error instanceof ProviderLoadingError) {
    const server = context.baseUrl ?? error.url;
    return (
      `The server at ${server} was still loading the model after ${formatMs(error.waitedMs)}: it kept answering HTTP 503 "${error.said}". ` +
      'Wait until it has loaded (its log shows how far it is), or raise OPENAI_TIMEOUT_MS.'
    );
  }
  if (error instanceof ProviderTimeoutError) {
    return (
      `No data from ${error.url} for ${formatLimit(error.timeoutMs)}${retried}, so the request was abandoned. If ` +
      `the model needs longer to think, raise OPENAI_TIMEOUT_MS (now ${error.timeoutMs}).`
    );
  }
  if (error instanceof ProviderAuthError) {
    return `No credentials for ${error.url}: ${error.message}. Fix: ${error.fix}.`;
  }
  if (error instanceof ProviderReportedError) {
    const code = error.code ? ` (${error.code})` : '';
    return `The provider reported an error${code}: ${error.message}`;
  }
  if (error instanceof ProviderProtocolError) return `The answer from ${error.url} could not be used: ${error.message}`;
  return `The response from ${error.url} broke off: ${error.message}${retried}.`;
}

/** Whether `url` is the base URL's own Chat Completions URL (the words then name the base only). */
function sameBase(base: string, url: string): boolean {
  const trim = (text: string) =>
    text
      .split(/[?#]/)[0]!
      .replace(/\/+$/, '')
      .replace(/\/chat\/completions$/i, '');
  return trim(base) === trim(url);
}

/** What to do about a small window when the server's profile says nothing more precise. */
export const DEFAULT_WINDOW_FIX =
  'use a model or server with a larger context window; if the server runs a larger window than it reports, set OPENAI_CONTEXT_WINDOW to it';

/**
 * The words for a request the model's context window cannot take, when pruning and retrying did
 * not help (or could not be tried): the window when known, the request's size when stated, and
 * the fix for that server (the profile's `contextWindowFix`, else {@link DEFAULT_WINDOW_FIX}).
 * E.g. "The conversation no longer fits the model's context window (4,096 tokens; the request
 * needed 5,162). Fix: restart Ollama with …. Meanwhile, /compact or a new session makes room."
 */
export function describeContextOverflow(overflow: { window?: number | undefined; requested?: number | undefined }, fix: string = DEFAULT_WINDOW_FIX): string {
  const size = overflow.window
    ? ` (${grouped(overflow.window)} tokens${overflow.requested ? `; the request needed ${grouped(overflow.requested)}` : ''})`
    : overflow.requested
      ? ` (the request needed ${grouped(overflow.requested)} tokens)`
      : '';
  return `The conversation no longer fits the model's context window${size}. Fix: ${fix}. Meanwhile, /compact or a new session makes room.`;
}

/** A `Location` header as an absolute URL (it may be relative to the request's). */
function resolveLocation(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

/** A time waited: `600 s` (rounded to whole seconds) from a second on, `300 ms` below. */
function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** A time limit as it was set: `1.5 s` for 1500, `90 s` for 90000, `1.234 s` for 1234, `300 ms` below a second (never rounded to another limit). */
function formatLimit(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(3))} s` : `${ms} ms`;
}
