/**
 * ACP prompt content → the user message of a Chat Completions request.
 *
 * - `text`: as is.
 * - `resource_link`: flattened to a line naming the resource and its URI.
 * - `resource` (embedded): text resources with their text, fenced by a header naming the URI;
 *   blob resources named, never dumped.
 * - `image`: an `image_url` content part with a `data:` URL, or the block's `uri` when it is http(s).
 * - `audio` (not advertised): named, not sent.
 *
 * Sources: ACP content blocks https://agentclientprotocol.com/protocol/v1/content ;
 * OpenAI vision input https://platform.openai.com/docs/guides/images-vision .
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { ChatRequestContentPart } from '../openai/openai-types.js';

/**
 * The text a non-image block contributes to the message. Flattened resources stand on lines of
 * their own; consecutive text blocks are set apart by {@link promptToUserContent}.
 */
function blockToText(block: Exclude<ContentBlock, { type: 'image' }>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link': {
      const label = block.title && block.title !== block.name ? `${block.title} (${block.name})` : block.name;
      const details = [block.mimeType, block.description].filter(Boolean).join(', ');
      return `\n[Resource: ${label} <${block.uri}>${details ? ` — ${details}` : ''}]\n`;
    }
    case 'resource': {
      const resource = block.resource;
      const name = nameOfUri(resource.uri);
      if ('text' in resource) {
        const mime = resource.mimeType ? ` (${resource.mimeType})` : '';
        return `\n[Resource: ${name} <${resource.uri}>${mime}]\n${resource.text}\n[End of ${name}]\n`;
      }
      const mime = resource.mimeType ? `, ${resource.mimeType}` : '';
      return `\n[Binary resource: ${name} <${resource.uri}>${mime}; contents not included]\n`;
    }
    case 'audio':
      return `\n[Audio (${block.mimeType}) not included: this agent does not send audio]\n`;
    default:
      return '';
  }
}

/**
 * The `image_url` part for an image block: a `data:` URL built from the block's `data` (works with
 * servers that cannot fetch URLs, such as a local Ollama), or its http(s) `uri` when it carries no data.
 */
function imageToPart(block: Extract<ContentBlock, { type: 'image' }>): ChatRequestContentPart {
  const uri = block.uri ?? '';
  const url = /^https?:\/\//i.test(uri) && !block.data ? uri : `data:${block.mimeType};base64,${block.data}`;
  return { type: 'image_url', image_url: { url } };
}

/** What sets two consecutive text blocks apart: a blank line. */
const TEXT_BLOCK_SEPARATOR = '\n\n';

/**
 * The `content` of the user message for a prompt: a plain string when there is no image (the
 * form every server accepts), else an array of `text` and `image_url` parts in prompt order.
 * Two text blocks in a row are set apart by {@link TEXT_BLOCK_SEPARATOR} unless a line break
 * already stands between them: they are separate messages (CodeCompanion sends a cancelled
 * prompt again as an extra block before the new one), never one run-on sentence. Text around a
 * mention (text, resource_link, text) is not affected.
 */
export function promptToUserContent(prompt: readonly ContentBlock[]): string | ChatRequestContentPart[] {
  const parts: ChatRequestContentPart[] = [];
  let text = '';
  let previous: ContentBlock['type'] | undefined;
  for (const block of prompt) {
    if (block.type === 'image') {
      if (trimNewlines(text)) parts.push({ type: 'text', text: trimNewlines(text) });
      text = '';
      parts.push(imageToPart(block));
    } else {
      const piece = blockToText(block);
      if (previous === 'text' && block.type === 'text' && text !== '' && !text.endsWith('\n') && !piece.startsWith('\n')) text += TEXT_BLOCK_SEPARATOR;
      text += piece;
    }
    previous = block.type;
  }
  if (parts.length === 0) return trimNewlines(text);
  if (trimNewlines(text)) parts.push({ type: 'text', text: trimNewlines(text) });
  return parts;
}

/** Drops the line breaks that flattened resources add at the very start or end. */
function trimNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, '');
}

function nameOfUri(uri: string): string {
  const path = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name) || uri;
  } catch {
    return name || uri;
  }
}
