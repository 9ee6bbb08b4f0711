/**
 * The map of tool-call formats as data (one file per family of formats): what `markers.ts` builds
 * the reader from, what `docs/tools.md` reports coverage from, and the choice of a family's reader
 * from the chat template a server names. Pure.
 */
import type { CallFormat } from './call-format.js';
import { JSON_WRAPPERS } from './json-wrappers.js';
import { TEXT_FORMS } from './text-forms.js';
import { TOKENS } from './tokens.js';
import { XML_TAGS } from './xml-tags.js';

export type { CallFormat, CallMarker } from './call-format.js';

/** Every format, each family's file in turn. */
export const CALL_FORMATS: readonly CallFormat[] = [...JSON_WRAPPERS, ...XML_TAGS, ...TOKENS, ...TEXT_FORMS];

/**
 * The format family a chat template writes tool calls in, from the template's text (llama.cpp's
 * `/props` `chat_template`, Ollama's `/api/show` `template`): the family whose template text
 * appears, the most specific first (a template that writes `<function=` inside `<tool_call>` is
 * Qwen3-Coder's, not Hermes'). `undefined` when none does.
 * @param template - the Jinja or Go template's text.
 */
export function formatForTemplate(template: string): CallFormat | undefined {
  return BY_SPECIFICITY.find((format) => format.template?.some((sign) => template.includes(sign)));
}

/**
 * The formats in the order a template is matched: tag and token formats first, the plain-text
 * forms next, the JSON wrappers last and Hermes' `<tool_call>` (which other families write their
 * own syntax inside) last of all.
 */
const BY_SPECIFICITY: readonly CallFormat[] = [
  ...XML_TAGS,
  ...TOKENS,
  ...TEXT_FORMS,
  ...JSON_WRAPPERS.filter((f) => f.id !== 'hermes'),
  ...JSON_WRAPPERS.filter((f) => f.id === 'hermes'),
];
