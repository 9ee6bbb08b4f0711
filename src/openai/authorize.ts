/**
 * The auth hook: a function that, given the exact request about to be sent, returns headers to
 * add to it. Used for credentials that are not a static key: AWS SigV4 signing (which covers the
 * method, URL, headers and the body bytes, so it must see exactly what is sent) and Microsoft
 * Entra ID bearer tokens (fetched and refreshed as they expire). The chat client, the model
 * catalog and `doctor`'s probes all call it where they build their headers.
 */
import { ProviderError } from './errors.js';

/** The request as it will go on the wire. */
export interface RequestToAuthorize {
  /** `GET` or `POST`. */
  method: string;
  /** The full URL, query included. */
  url: string;
  /** Every header we send, lower-case names (the hook's own headers are added after). */
  headers: Readonly<Record<string, string>>;
  /** The exact body text (UTF-8), or `undefined` for none (`GET`). */
  body: string | Uint8Array | undefined;
}

/**
 * Returns the headers to add (e.g. `authorization`, `x-amz-date`, `x-amz-security-token`), lower-case
 * names. Called once per attempt, so a retry is signed again with fresh credentials.
 * @throws {ProviderAuthError} when no credentials could be obtained
 */
export type AuthorizeRequest = (request: RequestToAuthorize) => Promise<Record<string, string>>;

/**
 * No credentials could be obtained for a request (none found, expired SSO session, no region…).
 * Not retryable; `message` says what failed and `fix` what to do, with no secret in either.
 */
export class ProviderAuthError extends ProviderError {
  readonly kind = 'config' as const;
  readonly retryable = false;
  /** What to do about it, in plain words (e.g. "run `aws sso login --profile dev`"). */
  readonly fix: string;
  constructor(url: string, message: string, fix: string, cause?: unknown) {
    super(message, url, { cause });
    this.fix = fix;
  }
}

/** Adds the hook's headers to `headers` (a copy), lower-case names; without a hook, `headers` as is. */
export async function withAuthorization(authorize: AuthorizeRequest | undefined, request: RequestToAuthorize): Promise<Record<string, string>> {
  if (!authorize) return { ...request.headers };
  const added = await authorize(request);
  const headers: Record<string, string> = { ...request.headers };
  for (const [name, value] of Object.entries(added)) headers[name.toLowerCase()] = value;
  return headers;
}
