/**
 * Command-line parsing for `openai-acp`, kept pure: argv in, a {@link CliCommand} out. No process
 * exits or output here; `cli.ts` acts on the result, and the help it prints is `cli-help.ts`.
 */
import type { CliFlags } from './config/config.js';
import { SETTINGS_TABLE } from './config/settings-table.js';
import { nearestWords } from './shared/did-you-mean.js';
import { FRONT_DOOR_FLAGS, isFrontDoorFlag, parseFrontDoorFlags, type FrontDoorFlag, type FrontDoorFlags } from './agentconnect/front-door-flags.js';
import { isServeFlag, parseServeFlags, SERVE_FLAGS, type ServeFlag, type ServeFlags } from './serve/serve-flags.js';

/** The flags of the `acp` command (defined with the configuration they override). */
export type { CliFlags } from './config/config.js';

/** The subcommands besides `acp`, each with its own `--help`. */
export type Subcommand = 'doctor' | 'models' | 'setup' | 'agentconnect' | 'serve';

/**
 * What the command line asks for: serve ACP with flags (the default), check the configuration
 * (`doctor`), list the endpoint's models (`models`), run the setup wizard (`setup`), print the
 * version or the help (of one subcommand when `topic` is set), or an error whose `message` names
 * the offending arguments and points at `--help`. `timeoutMs` is `--timeout-ms`, the bound of each
 * network check in ms, absent when not given.
 */
export type CliCommand =
  | { kind: 'acp'; flags: CliFlags }
  | { kind: 'doctor'; flags: CliFlags; timeoutMs?: number }
  | { kind: 'models'; flags: CliFlags; timeoutMs?: number }
  | { kind: 'setup' }
  | { kind: 'agentconnect'; flags: CliFlags; frontDoor: FrontDoorFlags }
  | { kind: 'serve'; flags: CliFlags; serve: ServeFlags }
  | { kind: 'version' }
  | { kind: 'help'; topic?: Subcommand }
  | { kind: 'error'; message: string };

/** Default bound of each network check of `doctor` and `models`, in ms (as `--help` states it). */
export const CHECK_TIMEOUT_MS = 10_000;
/** Largest `--timeout-ms` accepted (Node's timer limit), in ms. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The commands, and which flags each accepts (`--help`/`--version` are accepted everywhere). */
const COMMANDS = {
  acp: { settings: true, timeout: false },
  doctor: { settings: true, timeout: true },
  models: { settings: true, timeout: true },
  setup: { settings: false, timeout: false },
  agentconnect: { settings: true, timeout: false },
  serve: { settings: true, timeout: false },
} as const;
type CommandName = keyof typeof COMMANDS;
const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Flags taking a value, with the {@link CliFlags} key, the placeholder `--help` shows and the environment variable it overrides. */
export const VALUE_FLAGS = {
  '--base-url': { key: 'baseUrl', placeholder: 'URL', variable: 'OPENAI_BASE_URL' },
  '--model': { key: 'model', placeholder: 'ID', variable: 'OPENAI_MODEL' },
  '--system-prompt': { key: 'systemPrompt', placeholder: 'TEXT', variable: 'OPENAI_SYSTEM_PROMPT' },
} as const satisfies Record<string, { key: keyof CliFlags; placeholder: string; variable: string }>;
type ValueFlag = keyof typeof VALUE_FLAGS;
const isValueFlag = (name: string): name is ValueFlag => Object.hasOwn(VALUE_FLAGS, name);

const KNOWN = ['--help', '--version', '--timeout-ms', ...Object.keys(VALUE_FLAGS), ...new Set([...FRONT_DOOR_FLAGS, ...SERVE_FLAGS])];
const show = (arg: string) => JSON.stringify(arg.length > 40 ? `${arg.slice(0, 37)}…` : arg);

/** ` (did you mean X?)` for a mistyped flag or command: the nearest flags and commands, spelled as they are typed; '' when none is near. */
function didYouMean(word: string): string {
  const near = nearestWords(word, [...KNOWN, ...Object.keys(COMMANDS)]);
  return near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : '';
}

/** A hint for an unknown option: a near flag or command, else the variable that sets it. */
function hint(name: string): string {
  const near = didYouMean(name);
  if (near) return near;
  const variable = `OPENAI_${name.replace(/^-+/, '').toUpperCase().replace(/-/g, '_')}`;
  return SETTINGS_TABLE.some(([names]) => names === variable) ? ` (set ${variable} in the environment instead)` : '';
}

/**
 * Parses argv without node and the script. The first word is the command: none or `acp` serves
 * ACP; `doctor`, `models` and `setup` run those. `--version`/`-v` and `--help`/`-h` win over
 * everything else (help first; with a subcommand, its own help). `--base-url X`, `--base-url=X`,
 * `--model` and `--system-prompt` may appear anywhere for `acp`, `doctor` and `models` (the last of
 * a repeated flag wins); `--timeout-ms N` (a whole number of ms, 1 or more) only for `doctor` and
 * `models`; `setup` takes no flags. A value flag takes the next argument unless it is missing or
 * looks like an option (use `--flag=value` then). Unknown options and commands give
 * `{kind:'error'}`; the value after an unknown option, and anything after its `=`, are never
 * echoed (it may be a key).
 */
export function parseCliArgs(argv: string[]): CliCommand {
  const flags: CliFlags = {};
  const problems: string[] = [];
  let help = false;
  let version = false;
  let command: CommandName | undefined;
  let timeoutMs: number | undefined;
  const used: string[] = [];
  /** The values of the network commands' own flags (agentconnect, serve), checked against the command once it is known. */
  const networkPairs: [FrontDoorFlag | ServeFlag, string][] = [];
  const looksLikeOption = (arg: string | undefined) => arg === undefined || arg.startsWith('--') || arg === '-h' || arg === '-v';
  for (let i = 0; i < argv.length; i++) {
    const arg = String(argv[i]);
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version' || arg === '-v') version = true;
    else if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const name = eq === -1 ? arg : arg.slice(0, eq);
      let value = eq === -1 ? undefined : arg.slice(eq + 1);
      if (value === undefined && !looksLikeOption(argv[i + 1])) value = argv[++i];
      if (name === '--timeout-ms') {
        used.push(name);
        const ms = value === undefined ? Number.NaN : Number(value.trim());
        if (value === undefined || value.trim() === '') problems.push('--timeout-ms needs a value, e.g. --timeout-ms 10000');
        else if (!/^\d+$/.test(value.trim()) || ms < 1 || ms > MAX_TIMEOUT_MS)
          problems.push(`--timeout-ms takes a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${show(value)}`);
        else timeoutMs = ms;
      } else if (isFrontDoorFlag(name) || isServeFlag(name)) {
        used.push(name);
        // A --token value is never echoed, not even when it is empty.
        if (value === undefined || value.trim() === '') problems.push(`${name} needs a value`);
        else networkPairs.push([name, value]);
      } else if (!isValueFlag(name)) problems.push(`unknown option ${show(name)}${hint(name)}`);
      else if (value === undefined || value.trim() === '') problems.push(`${name} needs a value, e.g. ${name} ${VALUE_FLAGS[name].placeholder}`);
      else {
        used.push(name);
        flags[VALUE_FLAGS[name].key] = value;
      }
    } else if (command === undefined && isCommand(arg)) command = arg;
    else if (command === undefined) problems.push(`unknown command ${show(arg)}${didYouMean(arg)}`);
    else problems.push(`unexpected argument ${show(arg)} (openai-acp ${command} takes only flags)`);
  }
  const name = command ?? 'acp';
  if (help) return name === 'acp' ? { kind: 'help' } : { kind: 'help', topic: name };
  if (version) return { kind: 'version' };
  for (const flag of new Set(used)) {
    const allowed =
      flag === '--timeout-ms'
        ? COMMANDS[name].timeout
        : isFrontDoorFlag(flag) || isServeFlag(flag)
          ? (name === 'agentconnect' && isFrontDoorFlag(flag)) || (name === 'serve' && isServeFlag(flag))
          : COMMANDS[name].settings;
    if (!allowed) problems.push(`${name === 'acp' ? 'serving ACP' : `openai-acp ${name}`} does not take ${flag}`);
  }
  const frontDoor =
    name === 'agentconnect' ? parseFrontDoorFlags(networkPairs.filter((pair): pair is [FrontDoorFlag, string] => isFrontDoorFlag(pair[0]))) : undefined;
  if (frontDoor && 'problems' in frontDoor) problems.push(...frontDoor.problems);
  const serve = name === 'serve' ? parseServeFlags(networkPairs.filter((pair): pair is [ServeFlag, string] => isServeFlag(pair[0]))) : undefined;
  if (serve && 'problems' in serve) problems.push(...serve.problems);
  if (problems.length > 0) {
    const helpCommand = name === 'acp' ? 'openai-acp --help' : `openai-acp ${name} --help`;
    return { kind: 'error', message: `${problems.join('; ')}. Run ${helpCommand} for usage.` };
  }
  switch (name) {
    case 'acp':
      return { kind: 'acp', flags };
    case 'setup':
      return { kind: 'setup' };
    case 'agentconnect':
      return { kind: 'agentconnect', flags, frontDoor: (frontDoor as { flags: FrontDoorFlags }).flags };
    case 'serve':
      return { kind: 'serve', flags, serve: (serve as { flags: ServeFlags }).flags };
    default:
      return timeoutMs === undefined ? { kind: name, flags } : { kind: name, flags, timeoutMs };
  }
}
