/** What the agent is built from (`createOpenAIAgent`, `acp/agent.ts`): its settings, transport, endpoints and store. */
import type { Config, ConfigError } from '../config/config.js';
import type { EndpointChoice } from '../endpoints/endpoint-choice.js';
import type { FetchLike } from '../openai/http.js';
import type { Logger } from '../shared/log.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { OperatorAllowances } from '../tools/index.js';

/** What the agent is built from. */
export interface AgentOptions {
  config: Config;
  /** Set when the configuration was invalid: every prompt then explains it instead of running. */
  configError?: ConfigError | undefined;
  logger: Logger;
  /** Injectable transport (tests). */
  fetch?: FetchLike;
  /** Limit for `GET /models` in ms, which bounds how long `session/new` waits for it. @defaultValue 3000 */
  modelsTimeoutMs?: number;
  /**
   * The endpoints; or a function that finds them (the local server search), called once, after
   * the `initialize` answer is on its way (or at the first request that needs them) so that it
   * never delays that answer. @defaultValue the environment's endpoint from `config`
   */
  endpoints?: EndpointChoice | (() => Promise<EndpointChoice>);
  /** Where sessions are kept. @defaultValue an in-memory store */
  store?: SessionStore | Promise<SessionStore>;
  /** The agent's config directory (user-wide AGENTS.md and commands); absent: none are read. */
  configDir?: string | undefined;
  /** Re-reads the configuration for `authenticate` (after `openai-acp setup`); absent: authenticate changes nothing. */
  reload?: () => Promise<{ config: Config; configError?: ConfigError | undefined; endpoints: EndpointChoice }>;
  /**
   * The one directory every session's `cwd` (and additional directory) must be inside, as an
   * absolute path (`openai-acp serve --root`); absent: any absolute `cwd` (an editor on this machine).
   */
  root?: string | undefined;
  /**
   * What remote clients may point the agent at (`openai-acp serve`: `--allow-mcp`,
   * `--allow-private-urls`); absent: anything (an editor on this machine names its own servers).
   */
  allowances?: OperatorAllowances | undefined;
  /**
   * Collect what a burst of turns left once the agent has been quiet a while (`collect-garbage.ts`):
   * for the agent's own process (the CLI), never a host process it shares. @defaultValue false
   */
  collectWhenQuiet?: boolean | undefined;
}
