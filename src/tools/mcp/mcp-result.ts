/**
 * An MCP `tools/call` result turned into what the agent loop needs: text for the model, images
 * kept apart (the loop decides whether the model takes them), and ACP content blocks for the
 * client's `tool_call_update`. Pure.
 *
 * Shapes: MCP `CallToolResult` (spec 2025-06-18, "Tool Result": text, image, audio,
 * resource_link, resource; `structuredContent`; `isError`) and ACP `ContentBlock` (SDK 2.4).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The outcome of one MCP tool call, as {@link McpServers.call} returns it. */
export interface McpCallResult {
  /** The tool failed (`isError: true` from the server, or the call itself failed). */
  isError: boolean;
  /** Everything textual, for the model's tool message; one-line notes stand for binary parts. */
  text: string;
  /** Images returned by the tool, base64 `data` with their `mimeType`. */
  images: { data: string; mimeType: string }[];
  /** The result for the client, as ACP content blocks (text, image, audio, resource, link). */
  content: ContentBlock[];
}

/**
 * Said to the model when a tool returned nothing at all, so the tool message is never empty.
 * @internal the tests look for these exact words in what is sent.
 */
export const NO_OUTPUT = '(the tool returned no output)';

/** Approximate decoded size of base64 `data`, for notes. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** One MCP content block → its text for the model (or undefined) and its ACP block. */
function convertBlock(block: CallToolResult['content'][number], images: McpCallResult['images']): { text?: string; acp?: ContentBlock } {
  switch (block.type) {
    case 'text':
      return { text: block.text, acp: { type: 'text', text: block.text } };
    case 'image':
      images.push({ data: block.data, mimeType: block.mimeType });
      return { acp: { type: 'image', data: block.data, mimeType: block.mimeType } };
    case 'audio':
      return {
        text: `[audio (${block.mimeType}, ${base64Bytes(block.data)} bytes) not shown]`,
        acp: { type: 'audio', data: block.data, mimeType: block.mimeType },
      };
    case 'resource_link': {
      const label = block.title ?? block.name;
      const link: ContentBlock = { type: 'resource_link', uri: block.uri, name: block.name };
      if (block.mimeType !== undefined) link.mimeType = block.mimeType;
      if (block.title !== undefined) link.title = block.title;
      if (block.description !== undefined) link.description = block.description;
      return { text: `[resource link: ${label} <${block.uri}>]`, acp: link };
    }
    case 'resource': {
      const { resource } = block;
      const mimeType = resource.mimeType === undefined ? {} : { mimeType: resource.mimeType };
      if ('text' in resource && typeof resource.text === 'string') {
        return { text: resource.text, acp: { type: 'resource', resource: { uri: resource.uri, text: resource.text, ...mimeType } } };
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return {
        text: `[resource <${resource.uri}> (${resource.mimeType ?? 'binary'}, ${base64Bytes(blob)} bytes) not shown]`,
        acp: { type: 'resource', resource: { uri: resource.uri, blob, ...mimeType } },
      };
    }
    default:
      // A content type newer than this SDK: say so rather than drop it silently.
      return { text: `[${String((block as { type?: unknown }).type)} content not shown]` };
  }
}

/**
 * Converts a `tools/call` result. Text parts are joined with newlines; `structuredContent` is
 * given to the model as JSON only when there is no text (the spec asks servers to send both);
 * a legacy `{toolResult}` answer (protocol 2024-10-07) becomes its JSON. Never throws.
 */
export function toMcpCallResult(result: CallToolResult | { toolResult: unknown }): McpCallResult {
  if ('toolResult' in result && !('content' in result)) {
    const text = JSON.stringify(result.toolResult) ?? NO_OUTPUT;
    return { isError: false, text, images: [], content: [{ type: 'text', text }] };
  }
  const call = result as CallToolResult;
  const images: McpCallResult['images'] = [];
  const texts: string[] = [];
  const content: ContentBlock[] = [];
  for (const block of Array.isArray(call.content) ? call.content : []) {
    const { text, acp } = convertBlock(block, images);
    if (text !== undefined) texts.push(text);
    if (acp !== undefined) content.push(acp);
  }
  if (texts.length === 0 && call.structuredContent !== undefined) {
    const json = JSON.stringify(call.structuredContent);
    texts.push(json);
    content.push({ type: 'text', text: json });
  }
  const text = texts.length > 0 ? texts.join('\n') : images.length > 0 ? '' : NO_OUTPUT;
  return { isError: call.isError === true, text, images, content };
}

/** A failed call (thrown error, timeout, closed server) as a result: `text` in plain words. */
export function mcpErrorResult(text: string): McpCallResult {
  return { isError: true, text, images: [], content: [{ type: 'text', text }] };
}
