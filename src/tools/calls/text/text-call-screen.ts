/**
 * What of an answer's text may be shown while it streams, when tool calls may be written in it:
 * prose is shown as it arrives; from the point where a call may begin (a marker, even one cut by
 * the end of a delta; or, at the very start, what may be a bare JSON envelope or pythonic call)
 * the text is kept back. A marker kept back that turns out to be none lets go; a complete marker keeps back the
 * rest of the answer, for `readTextCalls` to read at the end. What was shown is never taken back.
 * Pure state; each push scans only the text not yet shown (the new piece and a partial marker kept back).
 */
import { looseName } from '../argument-names.js';
import { resolveToolName, stripTemplateLeaks } from '../tool-name-resolve.js';
import { clearOfMarkers, nextMarker, partialMarkerStart, proseLikeMarker } from './markers.js';

/** Keys a bare JSON call may start with. */
const CALL_KEYS: readonly string[] = ['name', 'arguments', 'parameters', 'args', 'type', 'id', 'function', 'tool_name', 'tool'];
/**
 * How far after a marker that prose also writes (`Action:`, `function call`) an offered tool's name
 * must appear for the text to be kept back as a call, in characters; short of it the text waits.
 */
const NAME_REACH = 200;

/** Code-fence languages a bare call may be fenced in. */
const FENCE_LANGS: readonly string[] = ['', 'json', 'xml', 'tool_call', 'tool_code', 'python'];

type Bare = 'yes' | 'maybe' | 'no';

/** A code fence's opening line at the end of a text (its language, and the line break and indentation after it, optional). */
const FENCE_OPENING = /(?:^|\n)[ \t]*`{1,3}(?:(?<=```)[\w-]*[ \t]*(?:\r?\n[ \t]*)?)?$/;

/**
 * Whether a JSON text so far may be a call object: `{` then (a prefix of) a call key, or of an
 * offered tool's name (`{"get_weather": {…}}`, as Apertus writes a call).
 */
function bareJson(text: string, names: readonly string[]): Bare {
  const key = /^\{\s*(?:"((?:[^"\\]|\\.)*)("?)|'([^'\\]*)('?))?/.exec(text);
  if (!key) return 'no';
  const name = key[1] ?? key[3];
  const closed = (key[2] ?? key[4]) === '"' || (key[2] ?? key[4]) === "'";
  if (name === undefined) return text.slice(key[0].length) === '' ? 'maybe' : 'no';
  const keys = [...CALL_KEYS, ...names];
  if (!closed) return keys.some((k) => k.startsWith(name)) ? 'maybe' : 'no';
  return keys.includes(name) ? 'yes' : 'no';
}

/** Whether a tool name written so far (`get_wea`, `GetWeather`, `functions.get`) may still become one the reader resolves among `names`. */
function mayBeName(name: string, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  if ('functions.'.startsWith(name) || 'tools.'.startsWith(name)) return true;
  // A word that ends a sentence (`Read.`) is no name going on.
  const loose = looseName(stripTemplateLeaks(name));
  return !name.endsWith('.') && names.some((n) => looseName(n).startsWith(loose));
}

/**
 * Whether the answer so far (from its start) may be a bare call, as the reader of the whole answer
 * takes one: a JSON envelope or an array of them, an object keyed by an offered tool's name,
 * pythonic calls or Gemma's `call:NAME{…}` naming an offered tool (as the reader resolves names),
 * either in a code fence. `yes` once it certainly starts like one (then it is kept back to the end).
 * @internal a pure step the tests check prefix by prefix.
 */
export function bareStart(answer: string, names: readonly string[]): Bare {
  const text = answer.trimStart();
  if (text === '' || '```'.startsWith(text)) return 'maybe';
  if (text.startsWith('```')) {
    const newline = text.indexOf('\n');
    const lang = text
      .slice(3, newline < 0 ? undefined : newline)
      .trim()
      .toLowerCase();
    if (newline < 0) return FENCE_LANGS.some((l) => l.startsWith(lang)) ? 'maybe' : 'no';
    return FENCE_LANGS.includes(lang) ? bareStart(text.slice(newline + 1), names) : 'no';
  }
  if (text[0] === '{') return bareJson(text, names);
  const inList = text[0] === '[';
  const rest = inList ? text.slice(1).trimStart() : text;
  if (inList && rest === '') return 'maybe';
  if (rest[0] === '{') return bareJson(rest, names);
  // Gemma 4's call with its tokens gone: `call:NAME{…}`.
  if (!inList && names.length > 0 && ('call:'.startsWith(rest) || rest.startsWith('call:'))) {
    const gemma = /^call:([A-Za-z_][\w.-]*)?(\s*\{?)/.exec(rest);
    const name = gemma?.[1];
    if (name === undefined) return gemma && gemma[0].length < rest.length ? 'no' : 'maybe';
    if (gemma![2]!.includes('{')) return resolveToolName(name, names) ? 'yes' : 'no';
    return gemma![0].length === rest.length && mayBeName(name, names) ? 'maybe' : 'no';
  }
  const call = /^([A-Za-z_][\w.-]*)(\s*\(?)/.exec(rest);
  if (!call) return 'no';
  const name = call[1]!;
  // A name as the reader of the whole answer resolves it (another case, a leaked `functions.`).
  if (call[2]!.includes('(')) return resolveToolName(name, names) ? 'yes' : 'no';
  if (call[0].length < rest.length) return 'no';
  return mayBeName(name, names) ? 'maybe' : 'no';
}

/**
 * Whether `text` opens, whitespace aside, as a call written as text, whatever the tool's name: a
 * format's marker, or a JSON envelope (fenced or not). A summary or an answer that does is a call,
 * not prose.
 */
export function opensLikeCall(text: string): boolean {
  const t = text.trimStart();
  if (t === '') return false;
  return nextMarker(t, 0)?.index === 0 || bareStart(t, []) !== 'no';
}

/** The streaming screen of one answer's text (see the module comment). */
export class TextCallScreen {
  /** The offered tools' names as {@link looseName} spells them. */
  private readonly loose: readonly string[];
  /** The text not yet given out: what a marker may still start in. */
  private pending = '';
  /** The last character given out (`' '` before any): whether a word-like marker may start next. */
  private before = ' ';
  private shown = 0;
  private rest: 'open' | 'kept' = 'open';
  private bare: Bare = 'maybe';

  /** @param names - the offered tools' names (a bare pythonic call must name one). */
  constructor(private readonly names: readonly string[]) {
    this.loose = names.map(looseName).filter((name) => name !== '');
  }

  /**
   * Adds the next piece of the answer's text; returns the part that may be shown now ('' when none).
   * Only the text not yet shown is searched: the whole answer is never read again while it streams
   * (a search of it would flatten it into one string per piece, time quadratic in its length).
   */
  push(piece: string): string {
    if (this.rest === 'kept') return '';
    this.pending += piece;
    if (this.bare !== 'no') {
      // Whitespace decides nothing that the next other character does not decide as well: the
      // answer is looked at again then (each look reads it from its start, so looking at every
      // piece of a model stuck on whitespace would take time quadratic in its length).
      if (this.bare === 'maybe' && piece.trim() === '') return '';
      this.bare = bareStart(this.pending, this.names);
      if (this.bare === 'yes') this.rest = 'kept';
      if (this.bare !== 'no') return '';
    }
    // Prose with nothing kept back and no place a marker (or a fence: ``` is one) may begin at: shown as it is.
    if (this.pending === piece && clearOfMarkers(this.before, piece)) {
      this.pending = '';
      this.before = piece[piece.length - 1] ?? this.before;
      this.shown += piece.length;
      return piece;
    }
    // The last shown character goes first, so a marker that is a word starts only where a word does.
    const window = this.before + this.pending;
    const found = this.callMarker(window);
    let stop: number;
    if (found.kept !== undefined) {
      this.rest = 'kept';
      stop = found.kept;
    } else stop = Math.min(found.waiting ?? window.length, partialMarkerStart(window, found.from));
    // A code fence opened just before (what may be) a call is kept back with it: it belongs to the call.
    const fence = FENCE_OPENING.exec(window.slice(1, stop));
    if (fence) stop = 1 + fence.index + (fence[0].startsWith('\n') ? 1 : 0);
    const out = window.slice(1, stop);
    this.pending = window.slice(stop);
    if (out !== '') this.before = out[out.length - 1]!;
    this.shown += out.length;
    return out;
  }

  /**
   * Where in `window` a call begins (`kept`: the rest is kept back), or a marker prose also writes
   * is still waiting for the name after it (`waiting`); `from`: where a partial marker is looked for.
   * A marker prose also writes begins a call only when an offered tool's name follows within
   * {@link NAME_REACH}; past that without one it is prose, and the search goes on after it.
   */
  private callMarker(window: string): { kept?: number; waiting?: number; from: number } {
    let from = 1;
    for (let marker = nextMarker(window, from); marker; marker = nextMarker(window, from)) {
      if (!proseLikeMarker(marker.marker)) return { kept: marker.index, from };
      const start = marker.index + marker.marker.length;
      const after = looseName(window.slice(start, start + NAME_REACH));
      if (this.loose.some((name) => after.includes(name))) return { kept: marker.index, from };
      if (window.length - start < NAME_REACH) return { waiting: marker.index, from };
      from = marker.index + 1;
    }
    return { from };
  }

  /** How many characters of the answer were given out to be shown. */
  get shownLength(): number {
    return this.shown;
  }
}
