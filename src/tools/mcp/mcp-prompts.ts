/**
 * MCP prompts as slash commands, pure: the command of a prompt (`<server>:<prompt>`), its
 * arguments read from what the user typed (`key=value` by name, else by position in the prompt's
 * argument order), and the prompt's messages as the turn's user content (ACP content blocks).
 *
 * Source: MCP prompts, https://modelcontextprotocol.io/specification/2025-06-18/server/prompts
 * (`prompts/list`, `prompts/get`, `PromptMessage`).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { splitArguments } from '../../context/command-files.js';

/** One prompt a server lists: the parts of MCP's `Prompt` used here. */
export interface McpPromptInfo {
  name: string;
  description?: string | undefined;
  arguments?: { name: string; description?: string | undefined; required?: boolean | undefined }[] | undefined;
}

/** One message of a `prompts/get` answer (MCP `PromptMessage`), loosely typed. */
export interface McpPromptMessage {
  role: string;
  content: {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
    uri?: string;
    name?: string;
    resource?: { uri: string; text?: string; blob?: string; mimeType?: string };
  };
}

/** The command name of a server's prompt: `<server>:<prompt>`, whitespace made `_`. */
export function promptCommandName(server: string, prompt: string): string {
  return `${server}:${prompt}`.replace(/\s+/g, '_');
}

/** The hint shown for a prompt's arguments: `<a> [b]` (required in angle brackets). */
export function promptHint(prompt: McpPromptInfo): string | undefined {
  const args = prompt.arguments ?? [];
  return args.length === 0 ? undefined : args.map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`)).join(' ');
}

/**
 * The arguments of `prompt` from `text`: words `name=value` for a known argument name, the other
 * words in order to the arguments not named. The last argument takes the rest of the words.
 * @returns the arguments, or a sentence naming the required ones missing.
 */
export function promptArguments(prompt: McpPromptInfo, text: string): { ok: true; args: Record<string, string> } | { ok: false; error: string } {
  const specs = prompt.arguments ?? [];
  const names = new Set(specs.map((spec) => spec.name));
  const args: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitArguments(text)) {
    const eq = word.indexOf('=');
    const key = eq > 0 ? word.slice(0, eq) : '';
    if (names.has(key)) args[key] = word.slice(eq + 1);
    else positional.push(word);
  }
  const open = specs.filter((spec) => !(spec.name in args));
  open.forEach((spec, index) => {
    const last = index === open.length - 1;
    const value = last ? positional.slice(index).join(' ') : positional[index];
    if (value) args[spec.name] = value;
  });
  const missing = specs.filter((spec) => spec.required && !args[spec.name]);
  if (missing.length > 0) return { ok: false, error: `missing ${missing.map((spec) => spec.name).join(', ')}` };
  return { ok: true, args };
}

/** The user content of a prompt's messages, in order (assistant messages too: the prompt wrote them as context). */
export function promptMessagesToContent(messages: readonly McpPromptMessage[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const { content } of messages) {
    if (content.type === 'text' && typeof content.text === 'string') blocks.push({ type: 'text', text: content.text });
    else if (content.type === 'image' && content.data && content.mimeType) blocks.push({ type: 'image', data: content.data, mimeType: content.mimeType });
    else if (content.type === 'resource' && content.resource?.uri) {
      const { uri, text, blob, mimeType } = content.resource;
      blocks.push({
        type: 'resource',
        resource: text !== undefined ? { uri, text, ...(mimeType ? { mimeType } : {}) } : { uri, blob: blob ?? '', ...(mimeType ? { mimeType } : {}) },
      });
    } else if (content.type === 'resource_link' && content.uri) blocks.push({ type: 'resource_link', uri: content.uri, name: content.name ?? content.uri });
  }
  return blocks;
}
