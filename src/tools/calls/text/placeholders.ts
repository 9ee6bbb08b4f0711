/**
 * Values a model copied from an example instead of writing its own: `<your_pattern>`, `<path>`,
 * `YOUR_API_KEY`, `...`. A call that carries one would run with the example's words (a search for
 * the text `<your_pattern>`), so it is refused, naming the value. Only a whole value is looked at
 * (a file's content that holds `...` is content). Pure.
 */

/** A whole value that is a placeholder: an angle-bracketed phrase, `YOUR_…`, an ellipsis. */
const PLACEHOLDER = /^(?:<[A-Za-z][\w .-]{0,40}>|(?:YOUR|MY)_[A-Z0-9_]+|\.{3}|…|\[\.{3}\])$/;
/** HTML tags a value may be (content, not a placeholder). */
const HTML = /^<(?:a|b|i|p|br|hr|div|span|li|ul|ol|td|tr|th|table|em|strong|code|pre|html|head|body|title|script|style|h[1-6])>$/i;

/** The first placeholder among the string values of `value` (depth-first), with the key it stands under. */
function findPlaceholder(value: unknown, key: string, depth: number): { key: string; value: string } | undefined {
  if (typeof value === 'string') return PLACEHOLDER.test(value.trim()) && !HTML.test(value.trim()) ? { key, value } : undefined;
  if (depth > 64 || typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = findPlaceholder(v, Array.isArray(value) ? key : k, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why a call whose arguments (JSON text) hold a placeholder copied from an example cannot run, or
 * `undefined` (also when the arguments are no JSON: the argument check speaks to that).
 */
export function placeholderProblem(argumentsText: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(argumentsText);
  } catch {
    return undefined;
  }
  const found = findPlaceholder(value, '', 0);
  return (
    found &&
    `the value ${JSON.stringify(found.value)}${found.key ? ` of "${found.key}"` : ''} is a placeholder copied from an example, not a value; write the real ${found.key ? `"${found.key}"` : 'value'}`
  );
}
