/**
 * Secrets from files: `<name>_FILE` (`OPENAI_API_KEY_FILE`, `OPENAI_HEADERS_FILE`,
 * `OPENAI_QUERY_FILE`, `OPENAI_ACP_SERVE_TOKEN_FILE`, `OPENAI_ACP_AGENTCONNECT_TOKEN_FILE`) names a
 * file whose content is the setting's value, the form Docker and Kubernetes secrets take (a file mounted under
 * `/run/secrets/`). The trailing newline is stripped. Applied to the environment before it is
 * parsed, so the value is then checked like any other.
 *
 * Convention: the `_FILE` suffix of the official Docker images (e.g. `POSTGRES_PASSWORD_FILE`,
 * https://docs.docker.com/engine/swarm/secrets/#build-support-for-docker-secrets-into-your-images).
 */
import { readFileSync } from 'node:fs';
import type { ConfigProblem } from './config-values.js';

/** The settings that are secrets and may come from a file (`<name>_FILE`). */
const SECRET_FILE_SETTINGS: readonly string[] = ['OPENAI_API_KEY', 'OPENAI_HEADERS', 'OPENAI_QUERY', 'OPENAI_ACP_SERVE_TOKEN', 'OPENAI_ACP_AGENTCONNECT_TOKEN'];
/** The ones the configuration reads (the tokens are read by `serve` and `agentconnect`). */
export const CONFIG_SECRET_FILES: readonly string[] = SECRET_FILE_SETTINGS.slice(0, 3);

/** Reads a file as UTF-8 text; throws (with a `code` such as `ENOENT`) when it cannot. */
export type ReadTextFile = (path: string) => string;

/** The default reader: `fs.readFileSync(path, 'utf8')`. */
export const readTextFile: ReadTextFile = (path) => readFileSync(path, 'utf8');

const isSet = (value: string | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The environment with each `<name>_FILE` of {@link SECRET_FILE_SETTINGS} replaced by the file's
 * content in `<name>` (one trailing `\n` or `\r\n` removed), and the problems found: both `<name>`
 * and `<name>_FILE` set, or a file that cannot be read (named with its path and the system error
 * code, never its content). Never throws; `env` is not modified.
 * @param names - the settings looked at. @defaultValue {@link SECRET_FILE_SETTINGS}
 */
export function applySecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  read: ReadTextFile = readTextFile,
  names: readonly string[] = SECRET_FILE_SETTINGS,
): { env: Record<string, string | undefined>; problems: ConfigProblem[] } {
  const out: Record<string, string | undefined> = { ...env };
  const problems: ConfigProblem[] = [];
  for (const name of names) {
    const fileSetting = `${name}_FILE`;
    const path = env[fileSetting];
    if (!isSet(path)) continue;
    if (isSet(env[name])) {
      problems.push({ variable: fileSetting, problem: `is set together with ${name}`, accepted: `either ${name} or ${fileSetting}, not both` });
      continue;
    }
    try {
      out[name] = read(path.trim()).replace(/\r?\n$/, '');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      problems.push({
        variable: fileSetting,
        problem: `cannot read the file ${path.trim()}${typeof code === 'string' ? ` (${code})` : ''}`,
        accepted: 'the path of a readable file holding the value',
      });
    }
  }
  return { env: out, problems };
}

/**
 * The paths of the secret files the environment names (`<name>_FILE` of {@link SECRET_FILE_SETTINGS}),
 * trimmed: what a sandbox hides from tool processes.
 */
export function secretFilePaths(env: Readonly<Record<string, string | undefined>>): string[] {
  return SECRET_FILE_SETTINGS.map((name) => env[`${name}_FILE`]?.trim()).filter((path): path is string => isSet(path));
}

/**
 * Takes the agent's secrets out of its own live environment: returns a copy of `env` (what the
 * agent resolves its configuration from) and deletes each secret of {@link SECRET_FILE_SETTINGS}
 * from `env` itself, so no process started later with the live environment inherits one by
 * mistake. The kernel's copy (`/proc/<pid>/environ`) keeps the environment the process started
 * with; only the `_FILE` form keeps a secret out of that.
 * @param env - the live environment, changed in place. @defaultValue `process.env`
 */
export function takeSecretsFromEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of SECRET_FILE_SETTINGS) delete env[name];
  return copy;
}
