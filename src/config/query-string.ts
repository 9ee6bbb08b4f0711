/**
 * Query strings as the configuration and the provider profiles combine them. Pure; no encoding
 * is added or removed (pieces are kept as written).
 */

/** Percent-decodes a query piece (`+` is a space); the text itself when malformed. */
export function decodeQueryPiece(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Combines query strings (without `?`): a later one's parameters replace the same (decoded)
 * names of earlier ones, e.g. `('a=1&b=2', 'b=3')` → `a=1&b=3`. `undefined` when nothing is left.
 */
export function mergeQueries(...queries: (string | undefined)[]): string | undefined {
  const pieces = (q: string | undefined) => (q ?? '').replace(/^\?/, '').split('&').filter(Boolean);
  const keyOf = (piece: string) => decodeQueryPiece(piece.split('=')[0] ?? '');
  let merged: string[] = [];
  for (const query of queries) {
    const next = pieces(query);
    const replaced = new Set(next.map(keyOf));
    merged = [...merged.filter((piece) => !replaced.has(keyOf(piece))), ...next];
  }
  return merged.join('&') || undefined;
}
