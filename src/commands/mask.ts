/**
 * Showing configuration without secrets: a key or a header value is described only by whether it
 * is set and its length, never by any of its characters; provider messages are scrubbed of
 * anything that looks like (part of) a key before they are shown.
 */
import { PUBLIC_QUERY, SECRET_NAME } from '../redact.js';

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
 */
export function maskQuery(query: string | undefined): string {
  if (!query) return '';
  return query
    .split('&')
    .map((piece) => {
      const eq = piece.indexOf('=');
      const name = eq === -1 ? piece : piece.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      return eq !== -1 && (SECRET_NAME.test(decoded) || !PUBLIC_QUERY.test(decoded)) ? `${name}=<${describeSecret(piece.slice(eq + 1))}>` : piece;
    })
    .join('&');
}

/** A URL with its query masked by {@link maskQuery}. */
export function maskUrl(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?${maskQuery(url.slice(at + 1))}`;
}

/** Shortest piece of a secret that gives a word away. */
const MIN_PIECE = 4;

/**
 * `text` with every word that could reveal a secret replaced by `***`: a word containing a whole
 * secret, or (when at least 8 characters long) the first or last 4 characters of one, or a run
 * of three or more `*` (providers echo keys half-masked, e.g. `sk-proj-****abcd`). Words are
 * runs of characters other than whitespace, quotes and brackets.
 *
 * @param secrets - the key and secret header values; those shorter than 4 characters are ignored.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const pieces = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_PIECE);
  const reveals = (word: string) =>
    /\*{3,}/.test(word) ||
    pieces.some(
      (secret) =>
        word.includes(secret) ||
        (word.length >= 8 && (word.includes(secret.slice(0, MIN_PIECE)) || word.includes(secret.slice(-MIN_PIECE)))),
    );
  return text.replace(/[^\s"'`()[\]{}<>,;]+/g, (word) => (reveals(word) ? '***' : word));
}

