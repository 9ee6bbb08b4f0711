/**
 * The session modes in one table: their ids in the order they are offered, the name and
 * description pickers show, what each lets a tool call do without asking, the note that tells the
 * model of the mode, and why it refuses a call. `permission.ts` decides by it; the session's side
 * (which mode it is in, the `configOptions` select, the legacy `modes`) is `loop/session-modes.ts`.
 *
 * Sources: ACP session modes https://agentclientprotocol.com/protocol/v1/session-modes (`id`,
 * `name`, `description` of each `availableModes` entry).
 */
import { PLAN_TOOL_NAME } from './plan-tool.js';

/** The session modes, in the order they are offered. `ask` is the default. */
export const SESSION_MODES = ['ask', 'accept-edits', 'plan', 'read-only', 'full-access'] as const;
/** One session mode. */
export type SessionMode = (typeof SESSION_MODES)[number];
/** The mode of a session that never chose one. */
export const DEFAULT_MODE: SessionMode = 'ask';

/** Whether `value` names a session mode. */
export function isSessionMode(value: unknown): value is SessionMode {
  return typeof value === 'string' && (SESSION_MODES as readonly string[]).includes(value);
}

/** One mode's row. */
export interface ModeRow {
  /** Shown in pickers (`availableModes[].name`, the select's option name). */
  readonly name: string;
  /** Shown in pickers under the name. */
  readonly description: string;
  /**
   * `edits` and `runs` calls: `refused` (but MCP tools marked read-only, which ask), `asked`,
   * `edits-inside-cwd` (edits inside the cwd and MCP tools marked read-only run, the rest asks), `allowed`.
   */
  readonly changes: 'refused' | 'asked' | 'edits-inside-cwd' | 'allowed';
  /** `fetches` calls: `allowed`, or `asked` unless a remembered choice for the host decides. */
  readonly fetches: 'allowed' | 'asked';
  /**
   * The mode's rule as the model is told it, in a note put in front of the prompt when the mode
   * changed (the system prompt and the tools stay the same in every mode, so a mode change keeps
   * the server's prefix cache).
   */
  readonly note: string;
  /** Said to the model when the mode refuses a call (no permission is asked); none: the user declined. */
  readonly refusal?: string;
}

/** Every mode's row. */
export const MODE_TABLE: Readonly<Record<SessionMode, ModeRow>> = {
  ask: {
    name: 'Ask',
    description: 'Ask before every edit and command',
    changes: 'asked',
    fetches: 'asked',
    note: "Session mode: Ask. Edits and commands are allowed; each may need the user's approval.",
  },
  'accept-edits': {
    name: 'Accept edits',
    description: 'Edit files in the project without asking; ask before commands',
    changes: 'edits-inside-cwd',
    fetches: 'allowed',
    note: "Session mode: Accept edits. Edits in the project are made without asking; commands need the user's approval.",
  },
  plan: {
    name: 'Plan',
    description: 'Read and search, then write a plan; asks to start (switching to Ask or Accept edits) once there is one',
    changes: 'refused',
    fetches: 'asked',
    note: `Session mode: Plan. No edits or commands yet: explore with the read and search tools, then write your plan with ${PLAN_TOOL_NAME}; the user is asked to approve it.`,
    refusal: `The session is in plan mode: edits and commands are not allowed until the user approves a plan. Explore with the read and search tools, then write your plan with ${PLAN_TOOL_NAME}.`,
  },
  'read-only': {
    name: 'Read only',
    description: 'Only read, list and search files; no edits, no commands',
    changes: 'refused',
    fetches: 'asked',
    note: 'Session mode: Read only. You cannot edit files or run commands; say what you would change.',
    refusal: 'The session is in read-only mode: edits and commands are not allowed. Tell the user what you would change instead.',
  },
  'full-access': {
    name: 'Full access',
    description: 'Edit files and run commands without asking',
    changes: 'allowed',
    fetches: 'allowed',
    note: 'Session mode: Full access. Edits and commands run without asking.',
  },
};
