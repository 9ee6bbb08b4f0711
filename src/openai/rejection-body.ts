/**
 * What an error answer's body says, read for `rejection.ts`: every string in it (JSON re-encoded
 * inside strings included), the `param` of OpenAI error objects that refuse a parameter, pydantic
 * `loc` fields naming a top-level body field, and the provider's own message. Pure.
 */
import { isRecord } from '../shared/json-value.js';

/** Words of an error that refuses a parameter (as opposed to refusing its value's size). */
const REJECTION_WORDS = /unsupported|not supported|unrecogni[sz]ed|unknown|not permitted|not allowed|extra_forbidden/i;
/** What a parsed body says, gathered from every depth (JSON re-encoded inside strings included). */
interface Gathered {
  /** Every string value. */
  texts: string[];
  /** `param` fields of error objects (OpenAI) whose code or message says the parameter is not accepted. */
  params: string[];
  /** Top-level body fields named by pydantic `loc: ["body", NAME]` (vLLM, Mistral). */
  locs: string[];
}

/**
 * Gathers into `out` what `value` says, walking at most 8 levels deep and into JSON encoded in
 * strings (under 20,000 characters).
 */
export function gather(value: unknown, out: Gathered, depth = 0): Gathered {
  if (depth > 8) return out;
  if (typeof value === 'string') {
    out.texts.push(value);
    // Some servers put a JSON body inside the message string (Mistral's 2024 422, relays).
    const inner = value.trim();
    if ((inner.startsWith('{') || inner.startsWith('[')) && inner.length < 20_000) {
      try {
        gather(JSON.parse(inner), out, depth + 1);
      } catch {
        // not JSON after all
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) gather(item, out, depth + 1);
  } else if (isRecord(value)) {
    // A `param` counts only when its error says the parameter is not accepted ("max_tokens is too large" is not that).
    const evidence = [value['code'], value['type'], value['message']].filter((v) => typeof v === 'string').join(' ');
    if (typeof value['param'] === 'string' && REJECTION_WORDS.test(evidence)) out.params.push(value['param']);
    const loc = value['loc'];
    if (Array.isArray(loc) && loc.length === 2 && loc[0] === 'body' && typeof loc[1] === 'string') out.locs.push(loc[1]);
    for (const item of Object.values(value)) gather(item, out, depth + 1);
  }
  return out;
}

/** The provider's own message: `error.message`, `message`, `error`, `detail`, else the text itself. */
export function mainMessage(parsed: unknown, text: string): string {
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = isRecord(first) ? first['error'] : undefined;
  const candidates = [
    isRecord(error) ? error['message'] : undefined,
    isRecord(first) ? first['message'] : undefined,
    error,
    isRecord(first) ? first['detail'] : undefined,
  ];
  const found = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '');
  return (found ?? text).trim().slice(0, 300);
}
