/**
 * Prompt blocks as they can be stored: a client may send blocks that `JSON.stringify` cannot
 * write (a `_meta` nested 10,000 deep overflows the stack). The turn is still
 * saved, without the parts that cannot be written, rather than lost.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';

/**
 * Replaces a block that could not be written at all.
 * @internal the tests look for these exact words in what is sent.
 */
export const UNSTORABLE_TEXT = '[a prompt block that could not be stored]';

/**
 * `prompt` with each block that cannot be serialised reduced to what can: first without `_meta`
 * and `annotations` (client extensions the agent never reads), else a text block saying that a
 * block was left out. Blocks that serialise are kept as they are (the same objects).
 */
export function storablePrompt(prompt: readonly ContentBlock[]): ContentBlock[] {
  return prompt.map((block) => {
    if (serialises(block)) return block;
    const { _meta: _dropped, annotations: _annotations, ...rest } = block as ContentBlock & { _meta?: unknown; annotations?: unknown };
    const bare = rest as ContentBlock;
    if (bare.type === 'resource' && typeof bare.resource === 'object' && bare.resource !== null) {
      const { _meta: _inner, ...resource } = bare.resource as typeof bare.resource & { _meta?: unknown };
      const stripped = { ...bare, resource } as ContentBlock;
      if (serialises(stripped)) return stripped;
    } else if (serialises(bare)) return bare;
    return { type: 'text', text: UNSTORABLE_TEXT };
  });
}

function serialises(value: unknown): boolean {
  try {
    return typeof JSON.stringify(value) === 'string';
  } catch {
    return false;
  }
}
