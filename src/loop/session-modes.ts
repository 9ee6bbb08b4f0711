/**
 * A session's mode (how much the agent may do without asking; the modes themselves are the table of
 * `tools/policy/mode-table.ts`), offered in both ACP shapes: a
 * `configOptions` select with `category: "mode"` and the legacy `modes` field with
 * `session/set_mode`. The mode and the remembered permission choices live in the session's
 * options, so they are saved with it and survive `session/load`.
 *
 * Sources: ACP session modes https://agentclientprotocol.com/protocol/v1/session-modes and
 * session config options https://agentclientprotocol.com/protocol/v1/session-config-options.
 */
import { RequestError, type SessionConfigOption, type SessionModeState } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../sessions/session.js';
import { DEFAULT_MODE, isSessionMode, MODE_TABLE, SESSION_MODES, type SessionMode } from '../tools/index.js';

/** The `configId` of the mode select (and the session option key holding the mode). */
export const MODE_CONFIG_ID = 'mode';
/** Prefix of the session option keys holding remembered permission choices. */
const PERMISSION_PREFIX = 'permission:';

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
    options: SESSION_MODES.map((mode) => ({ value: mode, name: MODE_TABLE[mode].name, description: MODE_TABLE[mode].description })),
  };
}

/** The legacy `modes` field of a session answer. */
export function legacyModes(session: Session): SessionModeState {
  return {
    currentModeId: sessionMode(session),
    availableModes: SESSION_MODES.map((mode) => ({ id: mode, name: MODE_TABLE[mode].name, description: MODE_TABLE[mode].description })),
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
 * The note to put in front of a turn's prompt (the mode's `note` of `MODE_TABLE`, in brackets; the
 * agent enforces the mode itself, `decidePermission`): the session's mode when it differs from the one
 * the model was last told of (`told`; none told means {@link DEFAULT_MODE}, whose rule the system
 * prompt gives); `undefined` when there is nothing new to tell.
 */
export function modeNoteFor(mode: SessionMode, told: string | undefined): string | undefined {
  return mode === (told ?? DEFAULT_MODE) ? undefined : `[${MODE_TABLE[mode].note}]`;
}
