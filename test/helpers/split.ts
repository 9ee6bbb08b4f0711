/** Cut `value` at the given offsets (taken modulo its length + 1, deduplicated, sorted): the pieces join back to `value`. */
export function splitAt<T extends string | Uint8Array>(value: T, offsets: number[]): T[] {
  const points = [...new Set(offsets.map((o) => o % (value.length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let last = 0;
  for (const p of points) {
    pieces.push(value.slice(last, p) as T);
    last = p;
  }
  pieces.push(value.slice(last) as T);
  return pieces;
}
