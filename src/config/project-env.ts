/**
 * The environment the agent reads, with where each setting came from: a CLI flag, the process
 * environment, or the project's `.env` file (merged under the environment: a variable present in
 * the environment, even empty, wins; flags win over both).
 *
 * One rule guards a local setup: a key from `.env` (`OPENAI_API_KEY` or `OPENAI_API_KEY_FILE`) is
 * used only for the base URL named in the same file. A project's `.env` often holds the key of
 * the application the project is (for api.openai.com); without this rule that key would switch
 * an agent meant for a local server to api.openai.com, or be sent to a base URL set elsewhere.
 * A key left out this way is said in a warning naming the file, never silently.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeDotEnv } from './load-config.js';
import { CONFIG_DEFAULTS, type CliFlags } from './config.js';

/** Where one setting's value came from. */
export type SettingSource = { kind: 'flag'; flag: string } | { kind: 'environment' } | { kind: 'dotenv'; path: string };

/** The environment of one project directory, and where each variable in it came from. */
export interface ProjectEnv {
  /** The process environment with the usable part of `.env` merged under it. */
  env: Record<string, string | undefined>;
  /** For each setting with a non-empty value (`OPENAI_*` names and the flags' variables): its source. */
  sources: Record<string, SettingSource>;
  /** The `.env` file read, when there was one. */
  dotEnvPath: string | undefined;
  /** Variables of `.env` left out by the key rule, with why; said at start and by `doctor` (no secrets). */
  warnings: string[];
}

/** The variables a flag overrides (`cli-args.ts` VALUE_FLAGS), with the flag's spelling. */
const FLAG_VARIABLES: ReadonlyArray<[keyof CliFlags, string, string]> = [
  ['baseUrl', 'OPENAI_BASE_URL', '--base-url'],
  ['model', 'OPENAI_MODEL', '--model'],
  ['systemPrompt', 'OPENAI_SYSTEM_PROMPT', '--system-prompt'],
];

/** The `.env` variables that are keys, and so kept to the `.env`'s own base URL. */
const KEY_VARIABLES = ['OPENAI_API_KEY', 'OPENAI_API_KEY_FILE'] as const;

const isSet = (value: string | undefined): value is string => typeof value === 'string' && value.trim() !== '';
/** A base URL compared without surrounding space or trailing slashes. */
const sameUrl = (a: string | undefined, b: string | undefined): boolean =>
  isSet(a) && isSet(b) && a.trim().replace(/\/+$/, '') === b.trim().replace(/\/+$/, '');

/** Reads `.env` in `cwd`: its path and text, or `undefined` when absent or unreadable. */
export function readProjectDotEnv(cwd: string): { path: string; text: string } | undefined {
  const path = join(cwd, '.env');
  try {
    return existsSync(path) ? { path, text: readFileSync(path, 'utf8') } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment of `dotEnv` merged under `env`, with each setting's source, applying the key
 * rule (module comment): a key that would come from `.env` is left out when the base URL in use
 * (`--base-url`, else the environment's `OPENAI_BASE_URL`, else the `.env`'s, else
 * {@link CONFIG_DEFAULTS}.baseUrl) is not the one the same `.env` names. Pure; never throws.
 */
export function projectEnv(dotEnv: { path: string; text: string } | undefined, env: Record<string, string | undefined>, flags: CliFlags = {}): ProjectEnv {
  const fromFile = dotEnv ? mergeDotEnv(dotEnv.text, {}) : {};
  const merged = mergeDotEnv(dotEnv?.text, env);
  const warnings: string[] = [];
  const fileBase = fromFile['OPENAI_BASE_URL'];
  const usedBase = isSet(flags.baseUrl) ? flags.baseUrl : isSet(merged['OPENAI_BASE_URL']) ? merged['OPENAI_BASE_URL'] : undefined;
  for (const name of KEY_VARIABLES) {
    if (env[name] !== undefined || !isSet(fromFile[name])) continue;
    if (sameUrl(usedBase, fileBase)) continue;
    delete merged[name];
    const where =
      usedBase === undefined
        ? `would go to ${CONFIG_DEFAULTS.baseUrl}`
        : `would go to ${usedBase.trim()} (set ${isSet(flags.baseUrl) ? 'by --base-url' : 'in the environment'})`;
    warnings.push(
      `${name} in ${dotEnv!.path} is not used: that file names ${isSet(fileBase) ? `the base URL ${fileBase.trim()}` : 'no OPENAI_BASE_URL'}, and the key ${where}. ` +
        `A project's .env key is only sent to the base URL in the same file: add OPENAI_BASE_URL to it, or set ${name} in the environment.`,
    );
  }
  const sources: Record<string, SettingSource> = {};
  for (const [name, value] of Object.entries(merged)) {
    if (!name.startsWith('OPENAI_') || !isSet(value)) continue;
    sources[name] = env[name] !== undefined ? { kind: 'environment' } : { kind: 'dotenv', path: dotEnv!.path };
  }
  for (const [key, name, flag] of FLAG_VARIABLES) if (isSet(flags[key])) sources[name] = { kind: 'flag', flag };
  return { env: merged, sources, dotEnvPath: dotEnv?.path, warnings };
}

/** A source in words: `--model`, `environment`, `.env (/path/.env)`. */
export function describeSource(source: SettingSource): string {
  if (source.kind === 'flag') return source.flag;
  return source.kind === 'environment' ? 'environment' : `.env (${source.path})`;
}
