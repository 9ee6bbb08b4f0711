/**
 * What one agent learns about its endpoints while it runs, kept for as long as the agent (one
 * per `AgentState`, shared by every endpoint of its registry and by the registries that replace
 * it after `providers/set` or `authenticate`, so a provider change forgets nothing): the context
 * windows stated by overflow answers, the chat templates that cannot take tools, the request
 * parameters a server refused, the Ollama servers without `/api/chat`, and the sessions' slots. An endpoint built
 * without one (`doctor`, `models`, a test) gets its own, so nothing outlives its owner.
 */
import { LearnedCorrections } from '../openai/adaptive-params.js';
import { LearnedWindows } from './learned-windows.js';
import type { ServerSlots } from './session-slots.js';
import { TextToolPaths } from './learned-text-paths.js';

/** What was learned, each keyed by endpoint (chat URL, or server root) and model. */
export class LearnedFacts {
  /** Windows learned from overflow answers (`learned-windows.ts`), tokens. */
  readonly windows = new LearnedWindows();
  /** Endpoints and models whose chat template cannot take tools (`text-tool-path.ts`). */
  readonly textPaths = new TextToolPaths();
  /** Parameters a server refused, with how the request is corrected (`openai/adaptive-params.ts`). */
  readonly corrections = new LearnedCorrections();
  /** Ollama server roots whose native `/api/chat` was found not served, with why (`ollama-native.ts`). */
  readonly nativeNotServed = new Map<string, string>();
  /** Server roots with slots: which session has which, and whether pinning keeps the cache there (`session-slots.ts`). */
  readonly slots = new Map<string, ServerSlots>();
}
