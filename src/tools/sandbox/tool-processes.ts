/**
 * How the processes the model's tools start are run, one setting for the whole agent process:
 * the environment they get ({@link toolEnvironment}) and whether they run in the bubblewrap
 * sandbox. The entry points set it once (`openai-acp` on stdio, `openai-acp serve`) from the
 * configuration; a client can change none of it. Used by local `run_command` and stdio MCP
 * servers; a command run in the client's terminal is the client's to confine.
 *
 * Sandbox modes (`OPENAI_ACP_SANDBOX`): `off` runs processes unconfined; `auto` confines them
 * where bubblewrap can run and says once where it cannot; `on` refuses to start them where it
 * cannot (never unconfined). Unset: `auto` under `serve`, `off` on stdio (the user's own editor).
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { ToolError } from '../tool.js';
import { bwrapArgs, type HiddenPath } from './bwrap-args.js';
import { AGENT_SECRET_NAMES, type EnvPolicy, toolEnvironment } from './env-policy.js';
import { probeSandbox, type SandboxAvailability } from './sandbox-probe.js';

/** The sandbox mode in force. */
type SandboxMode = 'on' | 'off' | 'auto';

/** The process-wide settings of tool processes. */
export interface ToolProcessSettings {
  /** The sandbox mode. @defaultValue `off` */
  sandbox: SandboxMode;
  /** Whether sandboxed processes share the network. @defaultValue false */
  network: boolean;
  /** The environment policy. @defaultValue `{}` (the default patterns and the agent's secret names) */
  policy: EnvPolicy;
  /** Paths hidden inside the sandbox (state and config directories, secret files), as given. @defaultValue [] */
  hidden: readonly string[];
}

/**
 * Always hidden in the sandbox: where containers mount secrets by convention (Docker secrets,
 * Kubernetes service-account tokens and secret volumes), and the AWS and Azure CLIs' credential
 * folders (the agent may sign its own requests with them).
 */
const SECRET_PLACES = (): string[] => ['/run/secrets', '/var/run/secrets', path.join(homedir(), '.aws'), path.join(homedir(), '.azure')];

const DEFAULT_SETTINGS: ToolProcessSettings = { sandbox: 'off', network: false, policy: {}, hidden: [] };
let settings: ToolProcessSettings = DEFAULT_SETTINGS;
let probe: () => SandboxAvailability = probeSandbox;

/**
 * Sets how tool processes run, for the rest of the process, from the configuration.
 * @param options.serve - true under `openai-acp serve` (the sandbox's default is then `auto`).
 * @param options.secretValues - the secret values the agent read (key, header values, tokens): a variable holding one is dropped.
 * @param options.hidden - paths to hide inside the sandbox (state directory, config directory, secret files).
 * @returns the settings now in force.
 */
export function configureToolProcesses(
  config: Pick<Config, 'sandbox' | 'sandboxNetwork' | 'toolEnvKeep' | 'toolEnvDrop'>,
  options: { serve: boolean; secretValues: readonly string[]; hidden: readonly (string | undefined)[] },
): ToolProcessSettings {
  settings = {
    sandbox: config.sandbox ?? (options.serve ? 'auto' : 'off'),
    network: config.sandboxNetwork,
    policy: { keep: config.toolEnvKeep, drop: config.toolEnvDrop, secretNames: AGENT_SECRET_NAMES, secretValues: [...options.secretValues] },
    hidden: options.hidden.filter((path): path is string => typeof path === 'string' && path !== ''),
  };
  return settings;
}

/** Adds paths to hide inside the sandbox, known later (the session directory once the store is open). */
export function hideFromToolProcesses(paths: readonly (string | undefined)[]): void {
  const more = paths.filter((path): path is string => typeof path === 'string' && path !== '' && !settings.hidden.includes(path));
  settings = { ...settings, hidden: [...settings.hidden, ...more] };
}

/** Adds secret values learned later (a reload after `openai-acp setup`). */
export function addToolSecrets(values: readonly string[]): void {
  const known = settings.policy.secretValues ?? [];
  settings = { ...settings, policy: { ...settings.policy, secretValues: [...known, ...values.filter((value) => !known.includes(value))] } };
}

/**
 * Back to the defaults, with another probe (tests).
 * @internal tests set and undo the process-wide settings.
 */
export function resetToolProcesses(testProbe: () => SandboxAvailability = probeSandbox): void {
  settings = DEFAULT_SETTINGS;
  probe = testProbe;
}

/** Whether tool processes run sandboxed now, and why not when they do not. */
function sandboxState(): { mode: SandboxMode; confined: boolean; availability: SandboxAvailability | undefined } {
  if (settings.sandbox === 'off') return { mode: 'off', confined: false, availability: undefined };
  const availability = probe();
  return { mode: settings.sandbox, confined: availability.available, availability };
}

/**
 * One sentence on how tool processes run, for the serve log and doctor; `undefined` when the
 * sandbox is off. `ok` false when it was asked for and cannot run.
 */
export function sandboxReport(): { ok: boolean; text: string } | undefined {
  const { mode, availability } = sandboxState();
  if (availability === undefined) return undefined;
  if (availability.available) {
    const network = settings.network ? 'network allowed' : 'no network';
    return {
      ok: true,
      text: `local commands and stdio MCP servers run in a bubblewrap sandbox (${availability.bwrap}): workspace writable, the rest read-only, secrets and sessions hidden, ${network}`,
    };
  }
  const what =
    mode === 'on' ? 'local commands and stdio MCP servers are refused (OPENAI_ACP_SANDBOX=on)' : 'local commands and stdio MCP servers run unconfined';
  return { ok: false, text: `the sandbox cannot run here: ${availability.reason}; ${what}. To change it: ${availability.remedy}` };
}

/** A path's real path and kind, or undefined when it does not exist. */
function hiddenPath(given: string): HiddenPath | undefined {
  try {
    const real = realpathSync.native(given);
    return { path: real, directory: statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}

/** The real path of a directory, or the path as given when it cannot be resolved. */
function realDir(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/**
 * How to start one tool process: the program, its arguments and its environment, wrapped in
 * bubblewrap when the sandbox is in force.
 * @param file - the program (a shell, an MCP server's command).
 * @param where.cwd - its working directory; `where.writable` the directories it may write (the session's roots).
 * @param where.extraEnv - variables set on top of the filtered environment (a stdio MCP server's `env` from the client's configuration).
 * @param baseEnv - the environment filtered. @defaultValue `process.env`
 * @throws {ToolError} when the mode is `on` and the sandbox cannot run here (nothing is started).
 */
export function toolSpawn(
  file: string,
  args: readonly string[],
  where: { cwd: string; writable: readonly string[]; extraEnv?: Readonly<Record<string, string>> | undefined },
  baseEnv: Readonly<Record<string, string | undefined>> = process.env,
): { file: string; args: string[]; env: Record<string, string>; sandboxed: boolean } {
  const env = { ...toolEnvironment(baseEnv, settings.policy).env, ...where.extraEnv };
  const { mode, availability } = sandboxState();
  if (availability?.available !== true) {
    if (mode === 'on' && availability !== undefined) {
      throw new ToolError(`not run: OPENAI_ACP_SANDBOX=on and the sandbox cannot run here (${availability.reason}); the operator can ${availability.remedy}`);
    }
    return { file, args: [...args], env, sandboxed: false };
  }
  const hidden = [...SECRET_PLACES(), ...settings.hidden].map(hiddenPath).filter((entry): entry is HiddenPath => entry !== undefined);
  const spec = { writable: [...new Set(where.writable.map(realDir))], hidden, network: settings.network, cwd: realDir(where.cwd) };
  return { file: availability.bwrap, args: bwrapArgs(spec, file, args), env, sandboxed: true };
}
