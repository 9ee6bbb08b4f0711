/**
 * Adaptive parameters: the correction that makes the next request acceptable after an endpoint
 * rejected a parameter (rename `max_tokens` ⇄ `max_completion_tokens`, drop the parameter, or
 * move the system prompt to the `developer` role or into the first user message), applied to a
 * request body, plus a small per-process record of the corrections each endpoint and model
 * needed. Reading the rejection itself is `rejection.ts`. Pure apart from that record.
 */
import { isRecord } from '../shared/json-value.js';

/** One change to the request body. */
export type Correction =
  /** Send `from`'s value under the name `to`. */
  | { kind: 'rename'; from: string; to: string }
  /** Stop sending these top-level parameters. */
  | { kind: 'drop'; params: string[] }
  /** System messages become `developer` messages, or (`user`) are merged into the first user message. */
  | { kind: 'system-role'; to: 'developer' | 'user' };

/** Most corrections made for one request before its error is given up on. */
export const MAX_CORRECTIONS_PER_REQUEST = 5;

/** Text of a message content (string, or the text parts of an array). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

/** `messages` with system/developer messages moved as `correction` says. */
function moveSystemMessages(messages: unknown[], to: 'developer' | 'user'): unknown[] {
  const isInstruction = (m: unknown) => isRecord(m) && (m['role'] === 'system' || m['role'] === 'developer');
  if (to === 'developer') return messages.map((m) => (isRecord(m) && m['role'] === 'system' ? { ...m, role: 'developer' } : m));
  const instructions = messages
    .filter(isInstruction)
    .map((m) => contentText((m as Record<string, unknown>)['content']))
    .filter(Boolean)
    .join('\n\n');
  const rest = messages.filter((m) => !isInstruction(m));
  const index = rest.findIndex((m) => isRecord(m) && m['role'] === 'user');
  if (!instructions) return rest;
  if (index < 0) return [{ role: 'user', content: instructions }, ...rest];
  const user = rest[index] as Record<string, unknown>;
  const content = user['content'];
  const merged = Array.isArray(content) ? [{ type: 'text', text: instructions }, ...content] : `${instructions}\n\n${contentText(content)}`;
  return rest.map((m, i) => (i === index ? { ...user, content: merged } : m));
}

/**
 * `body` with one correction applied; a new object (the input is not modified). Absent parameters are left alone.
 * @internal a pure step (fast-check properties) of applying the corrections.
 */
export function applyCorrection(body: Readonly<Record<string, unknown>>, correction: Correction): Record<string, unknown> {
  const next: Record<string, unknown> = { ...body };
  switch (correction.kind) {
    case 'rename':
      if (correction.from in next) {
        if (!(correction.to in next)) next[correction.to] = next[correction.from];
        delete next[correction.from];
      }
      break;
    case 'drop':
      for (const param of correction.params) delete next[param];
      break;
    case 'system-role':
      if (Array.isArray(next['messages'])) next['messages'] = moveSystemMessages(next['messages'], correction.to);
      break;
  }
  return next;
}

/** `body` with each correction applied in order. */
export function applyCorrections(body: Readonly<Record<string, unknown>>, corrections: readonly Correction[]): Record<string, unknown> {
  return corrections.reduce<Record<string, unknown>>((current, correction) => applyCorrection(current, correction), { ...body });
}

/** The correction in words, e.g. `renamed max_tokens to max_completion_tokens`, `dropped temperature, top_p`. */
export function describeCorrection(correction: Correction): string {
  switch (correction.kind) {
    case 'rename':
      return `renamed ${correction.from} to ${correction.to}`;
    case 'drop':
      return `dropped ${correction.params.join(', ')}`;
    case 'system-role':
      return correction.to === 'developer' ? 'sent the system prompt as a developer message' : 'merged the system prompt into the first user message';
  }
}

/**
 * Corrections learned per endpoint (chat URL) and model, kept for the life of their owner (what the
 * agent learned of its endpoints, or one chat client) and applied, in the order learned, to every later request for the same pair.
 */
export class LearnedCorrections {
  private readonly learned = new Map<string, Correction[]>();

  /** The corrections for `url` and `model`, oldest first (empty when none). */
  get(url: string, model: string): readonly Correction[] {
    return this.learned.get(`${url}\n${model}`) ?? [];
  }

  /** Adds `correction` for the pair. @returns false when the same correction was already known. */
  remember(url: string, model: string, correction: Correction): boolean {
    const key = `${url}\n${model}`;
    const list = this.learned.get(key) ?? [];
    const text = JSON.stringify(correction);
    if (list.some((known) => JSON.stringify(known) === text)) return false;
    this.learned.set(key, [...list, correction]);
    return true;
  }
}
