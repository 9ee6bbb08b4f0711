/**
 * Endpoints and models whose chat template cannot take tools, remembered for the life of the
 * agent (`learned-facts.ts`): the agent loop then uses its text path for them
 * (`context/text-tool-path.ts`: tools described in the system prompt, calls read from the
 * answer's text, results sent back as user messages), and the user is told once. Known from the server's own word (llama.cpp `/props`
 * `chat_template_caps.supports_tools: false`, `server-context.ts`) or from a template error
 * answering a request with tools (`openai/tools-unsupported.ts` `isToolTemplateError`).
 */

import type { ProviderProfile } from '../config/provider-profiles.js';
import type { ServerWindow } from './server-context.js';

/** What {@link heedServerToolSupport} reads of an endpoint (`Endpoint`'s fields of the same names). */
interface ToolSupportSource {
  profile: Pick<ProviderProfile, 'contextWindowQuery'>;
  client: { options: { url: string } };
  serverWindowOf?: ((model: string) => Promise<ServerWindow>) | undefined;
}

/** How the text path became known: the server said so, or it refused a request's tool messages. */
export type TextPathReason = 'server' | 'template-error';

/** The remembered endpoints and models (by the chat URL and the model id). */
export class TextToolPaths {
  private readonly entries = new Map<string, { reason: TextPathReason; announced: boolean }>();

  /** Uses the text path for `model` at `url` from now on (the first reason is kept). */
  use(url: string, model: string, reason: TextPathReason): void {
    const key = keyOf(url, model);
    if (!this.entries.has(key)) this.entries.set(key, { reason, announced: false });
  }

  /** Whether the text path is used for `model` at `url`. */
  has(url: string, model: string): boolean {
    return this.entries.has(keyOf(url, model));
  }

  /** The words telling the user, the first time they are asked for per endpoint and model; else `undefined`. */
  takeNotice(url: string, model: string): string | undefined {
    const entry = this.entries.get(keyOf(url, model));
    if (!entry || entry.announced) return undefined;
    entry.announced = true;
    const why = entry.reason === 'server' ? 'the server says its chat template cannot take tools' : "the server's chat template refused the tool messages";
    return (
      `The model ${model} gets its tools as text: ${why}. The tools are described in the system prompt and ` +
      `the model's calls are read from its answers (for native tool calls, give the server a template with tools, ` +
      'e.g. llama.cpp --jinja --chat-template-file).'
    );
  }
}

const keyOf = (url: string, model: string) => `${url}\n${model}`;

/**
 * Asks a llama.cpp server whether its chat template for `model` takes tools (`/props`
 * `chat_template_caps.supports_tools`, through the endpoint's cached window look: one short
 * request per endpoint and model in the process) and, when it says no, puts them on the text
 * path (`paths`) before the first request. Never rejects; other servers are not asked.
 */
export async function heedServerToolSupport(endpoint: ToolSupportSource, model: string, paths: TextToolPaths): Promise<void> {
  if (endpoint.profile.contextWindowQuery !== 'llamacpp-props' || !endpoint.serverWindowOf) return;
  const facts = await endpoint.serverWindowOf(model).catch(() => undefined);
  if (facts?.supportsTools === false) paths.use(endpoint.client.options.url, model, 'server');
}

/**
 * The chat template the server runs `model` with (llama.cpp `/props` `chat_template`, Ollama
 * `/api/show` `template`, through the endpoint's cached window look), so the reader of calls
 * written as text tries that template's family first; `undefined` where the server does not say
 * or is not asked. Never rejects.
 */
export async function serverChatTemplate(endpoint: Pick<ToolSupportSource, 'serverWindowOf'>, model: string): Promise<string | undefined> {
  if (!endpoint.serverWindowOf) return undefined;
  const facts = await endpoint.serverWindowOf(model).catch(() => undefined);
  return facts?.chatTemplate;
}
