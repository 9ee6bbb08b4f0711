/**
 * Keeping secrets out of every text the agent writes: log lines (`log.ts`) and the words shown to
 * the user (`openai/user-errors.ts`, doctor, models) go through the same {@link redactText};
 * provider messages the CLI commands show also through the stricter {@link scrubSecrets}.
 *
 * A secret is any configured value that could be a credential: the API key, every header value
 * except those of headers known to be public (attribution, content negotiation), and every query
 * value except a public `api-version`. Providers echo credentials back in error bodies (a 401 that
 * quotes the key, a gateway that repeats a header), so redaction applies to whole texts, not to
 * known fields.
 */

/** Header and query parameter names whose values are secrets (authorization, api-key, x-api-key, *token*, cookie, …). */
export const SECRET_NAME = /auth|key|token|secret|passw|cookie|session|signature|credential|^(sig|code)$/i;

/**
 * Header names whose values are public, so not redacted: OpenRouter's attribution headers
 * (`HTTP-Referer`, `X-Title`), content negotiation and version pins. Any other header's value may
 * be a credential (`X-Gateway`, a custom tenant header), whatever its name.
 */
export const PUBLIC_HEADER =
  /^(http-referer|referer|x-title|user-agent|content-type|accept|accept-language|openai-beta|openai-organization|openai-project|anthropic-version)$/i;

/** Query parameter names whose values are public: the API version pin of Azure and others. */
export const PUBLIC_QUERY = /^api[-_]?version$/i;

/** Shortest secret that is redacted; shorter ones would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;

const REDACTED = '***';

/** Control characters (line breaks included) escaped, so a log message stays on one line. */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Each secret as it may appear in a text: raw, JSON-escaped, control-escaped and percent-encoded. */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(escapeControls(secret));
    forms.add(encodeURIComponent(secret));
  }
  return [...forms];
}

/**
 * `text` with every occurrence of every form (see {@link secretForms}) replaced by `***`.
 * Overlapping or touching occurrences are merged into one, so no piece of a secret survives; the
 * pass repeats until nothing matches (a replacement could complete another secret). Each pass
 * shortens the text (forms are longer than `***`), so it ends. Plain string search: secrets with
 * regex metacharacters are matched literally.
 */
function redactForms(text: string, forms: readonly string[]): string {
  for (;;) {
    const spans: [number, number][] = [];
    for (const form of forms) {
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length]);
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let kept = 0;
    for (let i = 0; i < spans.length; ) {
      const start = spans[i]![0];
      let end = spans[i]![1];
      for (i++; i < spans.length && spans[i]![0] <= end; i++) end = Math.max(end, spans[i]![1]);
      out += text.slice(kept, start) + REDACTED;
      kept = end;
    }
    text = out + text.slice(kept);
  }
}

/**
 * The URLs in `text` with the values of secret-looking query parameters ({@link SECRET_NAME})
 * replaced by `***`, whether or not they are configured (a redirect's `Location` may carry one).
 */
function redactUrlQueries(text: string): string {
  if (!text.includes('?')) return text;
  return text.replace(/(https?:\/\/[^\s?#"'<>]*\?)([^\s#"'<>]*)/gi, (_all, head: string, query: string) => {
    const pieces = query.split('&').map((piece) => {
      const eq = piece.indexOf('=');
      if (eq === -1) return piece;
      const name = piece.slice(0, eq);
      return SECRET_NAME.test(decodeName(name)) ? `${name}=${REDACTED}` : piece;
    });
    return head + pieces.join('&');
  });
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * The one redaction of every text the agent writes (logs and user-facing words): secret-looking
 * query values in URLs ({@link redactUrlQueries}), then every configured secret ({@link redactForms}).
 *
 * @param secrets - configured secrets (see `secretsOf` in `config/config.ts`); those shorter than
 *   {@link MIN_SECRET_LENGTH} characters are ignored.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  return redactTextWithForms(text, secretForms(secrets));
}

/** {@link redactText} with the secrets' forms computed once ({@link secretForms}), for a caller that redacts many texts (the logger). */
export function redactTextWithForms(text: string, forms: readonly string[]): string {
  return redactCutTails(redactForms(redactUrlQueries(text), forms), forms);
}

/**
 * A text cut short for display ends in `…` (a provider message over 500 characters): a secret
 * that straddled the cut left its beginning there. Each `…` preceded by the first 4 or more
 * characters of a secret has that beginning replaced by `***`.
 */
function redactCutTails(text: string, forms: readonly string[]): string {
  if (!text.includes('…')) return text;
  return text.replace(/[^…]+(?=…)/g, (before) => {
    for (const form of forms) {
      for (let k = Math.min(form.length - 1, before.length); k >= MIN_SECRET_LENGTH; k--) {
        if (before.endsWith(form.slice(0, k))) return before.slice(0, before.length - k) + REDACTED;
      }
    }
    return before;
  });
}

/**
 * `text` with every word that could reveal a secret replaced by `***`: a word containing a whole
 * secret, or (when at least 8 characters long) the first or last 4 characters of one, or a run
 * of three or more `*` (providers echo keys half-masked, e.g. `sk-proj-****abcd`). Words are
 * runs of characters other than whitespace, quotes and brackets.
 *
 * Stricter than {@link redactText}, for provider messages the CLI commands (doctor, models, setup)
 * show: a provider may quote a key cut short or half-masked, which whole-secret matching misses.
 *
 * @param secrets - the key and secret header values; those shorter than {@link MIN_SECRET_LENGTH}
 *   characters are ignored.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const pieces = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH);
  const reveals = (word: string) =>
    /\*{3,}/.test(word) ||
    pieces.some(
      (secret) =>
        word.includes(secret) || (word.length >= 8 && (word.includes(secret.slice(0, MIN_SECRET_LENGTH)) || word.includes(secret.slice(-MIN_SECRET_LENGTH)))),
    );
  return text.replace(/[^\s"'`()[\]{}<>,;]+/g, (word) => (reveals(word) ? '***' : word));
}
