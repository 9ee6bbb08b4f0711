/**
 * "Did you mean …?" for a mistyped word (a command-line flag or command), pure: the known words
 * nearest to it, compared without case, dashes or underscores, so `--Base_URL`, `-base-url` and
 * `base-url` are all `--base-url`.
 */

/** Letters and digits only, lower case: how two spellings of one word are compared. */
const squash = (word: string) => word.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours, one each
 * (the optimal string alignment distance).
 */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Edits tolerated for a known word of `length` letters: 1 up to 5 letters, 2 up to 10, 3 beyond. */
const tolerance = (length: number) => (length <= 5 ? 1 : length <= 10 ? 2 : 3);

/**
 * The words of `known` that `word` most likely meant, in `known` order: those nearest to it
 * within their tolerance (one edit for `model`, two for `timeout-ms`, three for `agentconnect`),
 * else the one word it is the start of (at least 3 letters: `doc` is `doctor`; `mo`, the start
 * of `model` and `mode`, is neither), else the longest word it starts with (of 4 letters or more:
 * `--root-dir` is `--root`, `--model-name` is `--model`, not `--mode`). Empty when nothing is near.
 */
export function nearestWords(word: string, known: readonly string[]): string[] {
  const typed = squash(word);
  if (typed === '') return [];
  const scored = known.map((candidate) => ({ candidate, edits: distance(typed, squash(candidate)) }));
  const near = scored.filter(({ candidate, edits }) => edits <= tolerance(squash(candidate).length));
  if (near.length > 0) {
    const fewest = Math.min(...near.map(({ edits }) => edits));
    return near.filter(({ edits }) => edits === fewest).map(({ candidate }) => candidate);
  }
  const started = typed.length >= 3 ? known.filter((candidate) => squash(candidate).startsWith(typed)) : [];
  if (started.length === 1) return started;
  if (started.length > 1) return [];
  const within = known.filter((candidate) => squash(candidate).length >= 4 && typed.startsWith(squash(candidate)));
  const longest = Math.max(0, ...within.map((candidate) => squash(candidate).length));
  const chosen = within.filter((candidate) => squash(candidate).length === longest);
  return chosen.length === 1 ? chosen : [];
}
