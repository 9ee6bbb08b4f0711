/**
 * The environment a tool process gets (a local `run_command`, a stdio MCP server): the agent's
 * own, less its secrets and every variable that looks like one, as the operator's policy says.
 * Pure.
 *
 * The rules, in order (names compared without regard to case; `*` in a pattern matches any run of
 * characters):
 * 1. A name the operator's `drop` list matches is dropped.
 * 2. A name the operator's `keep` list matches is kept; but the agent's own secrets (by name or
 *    value) only when `keep` names them exactly, never through a pattern.
 * 3. The agent's own secrets are dropped: the names in `secretNames` (its key, headers, tokens and
 *    their `_FILE` forms) and any variable whose value holds a secret value it read.
 * 4. A name matching a default pattern ({@link DEFAULT_DROP_PATTERNS}) is dropped.
 * 5. The rest is kept.
 *
 * Model: codex's `shell_environment_policy`, whose default excludes are `*KEY*`, `*SECRET*` and
 * `*TOKEN*` (https://github.com/openai/codex/blob/main/docs/config.md#shell_environment_policy).
 */

/**
 * Names dropped unless the operator keeps them: anything that reads as a key, secret, token,
 * password or credential, and the AWS and Azure SDKs' variables (a cloud identity).
 * @internal the tests hold the list to the one the docs name.
 */
export const DEFAULT_DROP_PATTERNS: readonly string[] = ['*KEY*', '*SECRET*', '*TOKEN*', '*PASSWORD*', '*CREDENTIAL*', 'AWS_*', 'AZURE_*'];

/**
 * The variables that hold the agent's own secrets, or name the file holding one: never passed on,
 * whatever they are called, unless the operator keeps one by its exact name.
 */
export const AGENT_SECRET_NAMES: readonly string[] = [
  'OPENAI_API_KEY',
  'OPENAI_HEADERS',
  'OPENAI_QUERY',
  'OPENAI_ACP_SERVE_TOKEN',
  'OPENAI_ACP_AGENTCONNECT_TOKEN',
].flatMap((name) => [name, `${name}_FILE`]);

/** Secret values shorter than this (characters) are not looked for inside other variables (too likely to match by chance). */
const MIN_SECRET_VALUE = 8;

/** The operator's policy and what the agent knows of its own secrets. */
export interface EnvPolicy {
  /** Names or `*` patterns kept over the defaults (`OPENAI_ACP_TOOL_ENV_KEEP`). @defaultValue [] */
  keep?: readonly string[] | undefined;
  /** Names or `*` patterns always dropped (`OPENAI_ACP_TOOL_ENV_DROP`). @defaultValue [] */
  drop?: readonly string[] | undefined;
  /** Names of variables holding the agent's secrets. @defaultValue {@link AGENT_SECRET_NAMES} */
  secretNames?: readonly string[] | undefined;
  /** Secret values the agent read (key, header values, tokens): a variable holding one is dropped. @defaultValue [] */
  secretValues?: readonly string[] | undefined;
}

/** Each pattern's regex, built once (the patterns are the defaults and the operator's few; every variable of every tool process is tested). */
const compiledPatterns = new Map<string, RegExp>();

/** A `*` pattern (or a plain name) as a case-insensitive whole-name test. */
function patternTest(pattern: string): (name: string) => boolean {
  let regex = compiledPatterns.get(pattern);
  if (!regex) {
    const source = pattern
      .split('*')
      .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${source}$`, 'i');
    compiledPatterns.set(pattern, regex);
  }
  const compiled = regex;
  return (name) => compiled.test(name);
}

/** Whether any of `patterns` matches `name`. */
const anyMatch = (patterns: readonly string[], name: string): boolean => patterns.some((pattern) => patternTest(pattern)(name));

/**
 * Why `name` (with `value`) is left out of a tool's environment, or `undefined` when it is kept.
 * The reasons are for `doctor` and the log; they never hold the value.
 */
export function dropReason(name: string, value: string, policy: EnvPolicy = {}): string | undefined {
  const keep = policy.keep ?? [];
  if (anyMatch(policy.drop ?? [], name)) return 'OPENAI_ACP_TOOL_ENV_DROP';
  const keptByName = keep.some((entry) => !entry.includes('*') && entry.toUpperCase() === name.toUpperCase());
  const secretNames = policy.secretNames ?? AGENT_SECRET_NAMES;
  const ownSecret =
    secretNames.some((secret) => secret.toUpperCase() === name.toUpperCase()) ||
    (policy.secretValues ?? []).some((secret) => secret.length >= MIN_SECRET_VALUE && value.includes(secret));
  if (ownSecret) return keptByName ? undefined : "the agent's own secret";
  if (keptByName || anyMatch(keep, name)) return undefined;
  return DEFAULT_DROP_PATTERNS.find((pattern) => patternTest(pattern)(name));
}

/**
 * The environment for a tool process: `env` filtered by `policy` (see the module comment).
 * @returns the kept variables (undefined values left out) and the names dropped, in `env`'s order.
 */
export function toolEnvironment(env: Readonly<Record<string, string | undefined>>, policy: EnvPolicy = {}): { env: Record<string, string>; dropped: string[] } {
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (dropReason(name, value, policy) === undefined) kept[name] = value;
    else dropped.push(name);
  }
  return { env: kept, dropped };
}
