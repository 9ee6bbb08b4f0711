/**
 * Session modes (how much the agent may do without asking), offered in both ACP shapes: a
 * `configOptions` select with `category: "mode"` and the legacy `modes` field with
 * `session/set_mode`. The mode and the remembered permission choices live in the session's
 * options, so they are saved with it and survive `session/load`.
 *
 * Sources: ACP session modes https://agentclientprotocol.com/protocol/v1/session-modes and
 * session config options https://agentclientprotocol.com/protocol/v1/session-config-options.
 */
import { RequestError, type SessionConfigOption, type SessionModeState } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../sessions/session-manager.js';
import { DEFAULT_MODE, isSessionMode, SESSION_MODES, type SessionMode } from '../tools/index.js';

/** The `configId` of the mode select (and the session option key holding the mode). */
export const MODE_CONFIG_ID = 'mode';
/** Prefix of the session option keys holding remembered permission choices. */
const PERMISSION_PREFIX = 'permission:';

/** Names and descriptions shown in pickers. */
const MODE_TEXT: Record<SessionMode, { name: string; description: string }> = {
  ask: { name: 'Ask', description: 'Ask before every edit and command' },
  'accept-edits': { name: 'Accept edits', description: 'Edit files in the project without asking; ask before commands' },
  plan: { name: 'Plan', description: 'Read and search, then write a plan; asks to start (switching to Ask or Accept edits) once there is one' },
  'read-only': { name: 'Read only', description: 'Only read, list and search files; no edits, no commands' },
  'full-access': { name: 'Full access', description: 'Edit files and run commands without asking' },
};

/** The session's mode ({@link DEFAULT_MODE} when none was chosen). */
export function sessionMode(session: Session): SessionMode {
  const value = session.options[MODE_CONFIG_ID];
  return isSessionMode(value) ? value : DEFAULT_MODE;
}

/**
 * Set the session's mode.
 * @throws {RequestError} -32602 naming the valid modes for anything else.
 */
export function selectMode(session: Session, value: unknown): void {
  if (!isSessionMode(value)) throw RequestError.invalidParams({ value }, `Invalid mode ${JSON.stringify(value)}; valid values: ${SESSION_MODES.join(', ')}`);
  session.options[MODE_CONFIG_ID] = value;
}

/** The mode select for `configOptions`. */
export function modeConfigOption(session: Session): SessionConfigOption {
  return {
    id: MODE_CONFIG_ID,
    name: 'Mode',
    category: 'mode',
    type: 'select',
    currentValue: sessionMode(session),
    options: SESSION_MODES.map((mode) => ({ value: mode, name: MODE_TEXT[mode].name, description: MODE_TEXT[mode].description })),
  };
}

/** The legacy `modes` field of a session answer. */
export function legacyModes(session: Session): SessionModeState {
  return {
    currentModeId: sessionMode(session),
    availableModes: SESSION_MODES.map((mode) => ({ id: mode, name: MODE_TEXT[mode].name, description: MODE_TEXT[mode].description })),
  };
}

/** The remembered permission choices of a session, by permission key. */
export function rememberedChoices(session: Session): Record<string, 'allow' | 'reject'> {
  const choices: [string, 'allow' | 'reject'][] = [];
  for (const [key, value] of Object.entries(session.options)) {
    if (key.startsWith(PERMISSION_PREFIX) && (value === 'allow' || value === 'reject')) choices.push([key.slice(PERMISSION_PREFIX.length), value]);
  }
  // fromEntries defines own properties: a key like `__proto__` stays an entry instead of being dropped.
  return Object.fromEntries(choices);
}

/** The session option entry that remembers `choice` for `key` (to merge into the options and save). */
export function rememberChoice(key: string, choice: 'allow' | 'reject'): Record<string, string> {
  return { [`${PERMISSION_PREFIX}${key}`]: choice };
}

/**
 * Each mode's rule as the model is told it, in one short note put in front of the user's prompt
 * when the mode changed since the model was last told (the system prompt and the tools stay the
 * same in every mode, so a mode change keeps the server's prefix cache). The agent enforces the
 * mode itself (`tools/policy/permission.ts`): a call the mode forbids is refused with its reason.
 */
const MODE_NOTES: Record<SessionMode, string> = {
  ask: "Session mode: Ask. Edits and commands are allowed; each may need the user's approval.",
  'accept-edits': "Session mode: Accept edits. Edits in the project are made without asking; commands need the user's approval.",
  plan: 'Session mode: Plan. No edits or commands yet: explore with the read and search tools, then write your plan with update_plan; the user is asked to approve it.',
  'read-only': 'Session mode: Read only. You cannot edit files or run commands; say what you would change.',
  'full-access': 'Session mode: Full access. Edits and commands run without asking.',
};

/** The note telling the model of `mode` ({@link MODE_NOTES}), in brackets. */
function modeNote(mode: SessionMode): string {
  return `[${MODE_NOTES[mode]}]`;
}

/**
 * The note to put in front of a turn's prompt: the session's mode when it differs from the one
 * the model was last told of (`told`; none told means {@link DEFAULT_MODE}, whose rule the system
 * prompt gives); `undefined` when there is nothing new to tell.
 */
export function modeNoteFor(mode: SessionMode, told: string | undefined): string | undefined {
  return mode === (told ?? DEFAULT_MODE) ? undefined : modeNote(mode);
}
