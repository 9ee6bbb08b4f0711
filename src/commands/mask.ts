/**
 * Showing configuration without secrets: a key or a header value is described only by whether it
 * is set and its length, never by any of its characters. (Provider messages the commands show
 * are scrubbed by `scrubSecrets` in `redact.ts`.)
 */
import { decodeQueryPiece } from '../config/query-string.js';
import { PUBLIC_QUERY, SECRET_NAME } from '../shared/redact.js';

/** `set (51 characters)`, or `not set` for `undefined` or an empty string. */
export function describeSecret(value: string | undefined): string {
  if (!value) return 'not set';
  return `set (${value.length} character${value.length === 1 ? '' : 's'})`;
}

/**
 * Headers as `name: set (N characters)`, comma-separated; every value is masked, whatever its
 * name (a value may be a secret under any name). `none` when there are none.
 */
export function describeHeaders(headers: Readonly<Record<string, string>>): string {
  const names = Object.keys(headers);
  return names.length === 0 ? 'none' : names.map((name) => `${name}: ${describeSecret(headers[name])}`).join(', ');
}

/**
 * A query string with parameter values replaced by `<set (N characters)>`, except a public
 * `api-version` (`api-version=2024-10-21`): any configured value (OPENAI_QUERY) may be a credential.
 * @internal a pure step (fast-check properties) of the masking every doctor line goes through.
 */
export function maskQuery(query: string | undefined): string {
  if (!query) return '';
  return query
    .split('&')
    .map((piece) => {
      const eq = piece.indexOf('=');
      const name = eq === -1 ? piece : piece.slice(0, eq);
      const decoded = decodeQueryPiece(name);
      return eq !== -1 && (SECRET_NAME.test(decoded) || !PUBLIC_QUERY.test(decoded)) ? `${name}=<${describeSecret(piece.slice(eq + 1))}>` : piece;
    })
    .join('&');
}

/** A URL with its query masked by {@link maskQuery}. */
export function maskUrl(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?${maskQuery(url.slice(at + 1))}`;
}
