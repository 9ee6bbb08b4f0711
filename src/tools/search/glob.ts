/**
 * The glob of `search_files` as a regular expression (no dependency needed for this much), tested
 * by the search worker, never on the main thread (a glob can backtrack like any pattern):
 *
 * - `*` any characters but `/`; `?` one character but `/`
 * - `**` any characters including `/`; `**` + `/` at a segment start also matches no directory at all
 * - `{a,b}` either alternative (may nest, may hold the wildcards above)
 * - `[abc]`, `[a-z]`, `[!abc]` / `[^abc]` one character of (or not of) a set
 * - `\x` the character x itself; everything else matches itself
 *
 * A glob without `/` is matched against the file name alone, at any depth (`*.ts` finds
 * `src/a/b.ts`, as ripgrep's `-g` does); one with `/` against the whole path relative to the
 * searched directory (a leading `/` or `./` is dropped). A leading `!` negates the glob (files it
 * matches are left out), as with ripgrep's `-g`.
 */

/** A glob as data a worker thread can compile: the regex source and what it is tested against. */
export interface GlobSpec {
  /** Regular expression source, anchored (`^…$`). */
  source: string;
  /** True: tested against the file name alone; false: against the whole relative path. */
  basename: boolean;
  /** True for a `!glob`: a match leaves the file out. */
  negate: boolean;
}

/** The {@link GlobSpec} of `glob` (linear in its length; the regex it names is run elsewhere). Pure. */
export function globSpec(glob: string): GlobSpec {
  let pattern = glob.trim();
  const negate = pattern.startsWith('!');
  if (negate) pattern = pattern.slice(1);
  pattern = pattern.replace(/^\.?\//, '');
  return { source: `^${globToRegexSource(pattern)}$`, basename: !pattern.includes('/'), negate };
}

/** The regular expression source (without anchors) for `glob`. Pure. */
function globToRegexSource(glob: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob.charAt(++i));
    } else if (c === '*') {
      if (glob.charAt(i + 1) === '*') {
        const atSegmentStart = i === 0 || glob.charAt(i - 1) === '/';
        i++;
        if (atSegmentStart && glob.charAt(i + 1) === '/') {
          out += '(?:.*/)?';
          i++;
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
      i = end;
    } else if (c === '{' && glob.indexOf('}', i) !== -1) {
      braceDepth++;
      out += '(?:';
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else {
      out += escapeRegex(c);
    }
  }
  // An unclosed `{` (its `}` belonged to an inner group): close what is open so the regex compiles.
  return out + ')'.repeat(braceDepth);
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
