/**
 * The program-facing facts of a failed turn: what the `data` of the JSON-RPC error answering a
 * failed `session/prompt` carries (`app/prompt-failure.ts`), and the few words for a failure that
 * came without its own (the user's words are `user-errors.ts`).
 */
import { ProviderHttpError, ProviderLoadingError, ProviderReportedError, type ProviderError, type ProviderErrorKind } from './errors.js';

/**
 * A failed turn: what programs read from the `data` of the error answering `session/prompt`
 * (`kind`, `status`, `retryable`; `loop`: the loop guard stopped it), and its words (the `message`).
 */
export interface ErrorMeta {
  kind: ProviderErrorKind | 'loop';
  status?: number;
  retryable: boolean;
  /** The failure in the user's words: the cause, the server and its status, what to do. @defaultValue {@link failureSummary} */
  message?: string;
}

/** The program-facing facts of a failure. */
export function errorMeta(error: ProviderError): ErrorMeta {
  const status =
    error instanceof ProviderHttpError || error instanceof ProviderReportedError || error instanceof ProviderLoadingError ? error.status : undefined;
  return { kind: error.kind, ...(status !== undefined ? { status } : {}), retryable: error.retryable };
}

/**
 * The failure in a few words (the kind of failure and its HTTP status), for a failure that came
 * without its own words (`ErrorMeta.message`).
 */
export function failureSummary(error: ErrorMeta): string {
  switch (error.kind) {
    case 'http':
      return error.status === undefined ? 'the endpoint rejected the request' : `the endpoint answered HTTP ${error.status}`;
    case 'connection':
      return 'the endpoint could not be reached';
    case 'timeout':
      return 'the endpoint sent nothing for too long';
    case 'stream':
      return "the endpoint's answer broke off";
    case 'provider':
      return `the provider reported an error${error.status === undefined ? '' : ` (HTTP ${error.status})`}`;
    case 'config':
      // No endpoint or an invalid setting, no credentials, or a context window too small for the request.
      return 'the model request could not be sent as set up';
    case 'internal':
      return 'openai-acp failed';
    case 'loop':
      return 'the turn was stopped: the model kept asking for tools';
  }
}
