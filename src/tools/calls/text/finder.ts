/**
 * Searches in one text by the readers of calls written as text, remembering each needle's last
 * answer: a reader that looks for a closing tag the text does not have would otherwise scan to
 * the end for every call, which many markers in one huge answer turn quadratic. Pure state.
 */

/** Finds needles in one text from increasing positions (so many searches of one answer stay linear). */
export class Finder {
  private readonly memo = new Map<string, { from: number; at: number }>();
  constructor(readonly text: string) {}

  /** The index of `needle` at or after `from`, or -1. */
  indexOf(needle: string, from: number): number {
    const known = this.memo.get(needle);
    if (known && known.from <= from && (known.at === -1 || known.at >= from)) return known.at;
    const at = this.text.indexOf(needle, from);
    this.memo.set(needle, { from, at });
    return at;
  }
}
