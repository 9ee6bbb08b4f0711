/**
 * The context-window line of `openai-acp doctor`: the window the agent would plan requests for
 * (by the precedence of `endpoints/window-resolver.ts`), with the server's runtime window beside
 * the model's trained one, and a warning with the server's fix when it is small for coding work.
 */
import type { EndpointSettings } from '../endpoints/endpoint.js';
import { createEndpoint } from '../endpoints/endpoint.js';
import type { ServerWindow } from '../endpoints/server-context.js';
import { resolveContextWindow, SMALL_WINDOW_TOKENS, type ResolvedWindow } from '../endpoints/window-resolver.js';
import { DEFAULT_WINDOW_FIX } from '../openai/user-errors.js';
import type { ProbeDeps } from './probes.js';
import { grouped } from '../shared/grouped.js';

/** What was found about the window of one endpoint's model, in tokens. */
export interface WindowFacts {
  /** The window the agent would use, and its source; absent when nothing says one. */
  resolved?: ResolvedWindow | undefined;
  /** The server's own report. */
  server: ServerWindow;
  /** The `/models` list's window for the model. */
  catalogue?: number | undefined;
  /** The fix for this server (profile data), else the generic advice. */
  fix: string;
  /**
   * Whether the runtime window is the one the agent asks for itself (Ollama's native API:
   * `options.num_ctx` on every request), not one the server reported.
   */
  asked?: boolean | undefined;
}

/** The check's title. */
export const WINDOW_TITLE = 'context window';

/**
 * Asks the server for the model's window (as the agent would; an Ollama model not loaded yet is
 * loaded) and resolves it with `OPENAI_CONTEXT_WINDOW` and the `/models` list's value. Never rejects.
 */
export async function probeWindow(
  settings: EndpointSettings,
  configured: number | undefined,
  catalogue: number | undefined,
  deps: ProbeDeps,
): Promise<WindowFacts> {
  const endpoint = createEndpoint(settings, {
    logger: deps.logger,
    fetch: deps.fetch,
    modelsTimeoutMs: deps.timeoutMs,
    cloudAuth: deps.cloudAuth,
    learned: deps.learned,
  });
  const server: ServerWindow = (await endpoint.serverWindowOf?.(settings.model).catch(() => ({}))) ?? {};
  const resolved = resolveContextWindow({ configured, runtime: server.runtime, catalogue, trained: server.trained });
  // On Ollama's native API the agent asks for the window itself: restarting the server changes nothing.
  const asked = endpoint.nativeChat?.inUse === true;
  const native = asked ? endpoint.profile.nativeChat?.windowFix : undefined;
  return { resolved, server, catalogue, fix: native ?? endpoint.profile.contextWindowFix ?? DEFAULT_WINDOW_FIX, asked };
}

/**
 * The line: ✓ for a window of {@link SMALL_WINDOW_TOKENS} or more, ⚠ below it (with the fix),
 * – when nothing says one. The detail names the runtime window beside the trained one, e.g.
 * "4,096 tokens (runtime, reported by the server; trained: 262,144)", or on Ollama's native API
 * "32,768 tokens (asked of Ollama with options.num_ctx; trained: 40,960)".
 */
export function windowLine(facts: WindowFacts): { status: 'pass' | 'warn' | 'skip'; title: string; detail: string; fix?: string } {
  const { resolved, server } = facts;
  if (!resolved)
    return {
      status: 'skip',
      title: WINDOW_TITLE,
      detail: 'the server does not say; requests are not fitted to a window until one overflows (set OPENAI_CONTEXT_WINDOW to plan for it)',
    };
  const how = {
    configured: 'set by OPENAI_CONTEXT_WINDOW',
    learned: 'learned from an overflow',
    runtime: facts.asked
      ? 'asked of Ollama with options.num_ctx'
      : server.assumed
        ? "runtime, Ollama's default assumed: the server did not report one"
        : 'runtime, reported by the server',
    catalogue: 'from the model list',
    trained: 'trained window: the server did not report the one it runs',
  }[resolved.source];
  const beside = [
    resolved.source !== 'runtime' && server.runtime !== undefined ? `${facts.asked ? 'asked of Ollama' : 'server runtime'}: ${grouped(server.runtime)}` : '',
    resolved.source !== 'trained' && server.trained !== undefined ? `trained: ${grouped(server.trained)}` : '',
    resolved.source !== 'catalogue' && facts.catalogue !== undefined ? `model list: ${grouped(facts.catalogue)}` : '',
  ].filter(Boolean);
  const detail = `${grouped(resolved.window)} tokens (${[how, ...beside].join('; ')})`;
  if (resolved.window >= SMALL_WINDOW_TOKENS) return { status: 'pass', title: WINDOW_TITLE, detail };
  return { status: 'warn', title: WINDOW_TITLE, detail: `${detail}: small for coding work`, fix: facts.fix };
}
