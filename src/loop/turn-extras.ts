/**
 * What a prompt turn keeps beside its messages: the plan the model wrote (sent as `plan`
 * updates, saved with the turn) and the checkpoints of the files it changed (for `/undo`), and
 * the mode switch a plan's approval makes (saved and announced).
 */
import type { PlanEntry, SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import { CheckpointRecorder } from '../sessions/checkpoints.js';
import type { Session } from '../sessions/session.js';
import type { TurnRecord } from '../sessions/session-records.js';
import { checkpointingBackend, relativeForTitle, type ToolBackend, type WorkspaceRoots } from '../tools/index.js';
import { modeAnnouncement, type PlanHooks } from './plan-mode.js';
import { MODE_CONFIG_ID, selectMode } from './session-modes.js';
import { agentText } from './to-acp.js';
import type { UpdateSink } from '../tools/index.js';

/** One turn's extras. */
export interface TurnExtras {
  /** The plan tool's hooks. */
  plan: PlanHooks;
  /** `backend` with checkpoints kept for `/undo`. */
  checkpointed(backend: ToolBackend, roots: WorkspaceRoots): ToolBackend;
  /** Puts the turn's plan and checkpoint (when any) into its record, and the mode a plan's approval switched to. */
  fill(record: TurnRecord): void;
}

/** What the extras need of the session and the runner. */
export interface TurnExtrasInput {
  session: Session;
  send: UpdateSink;
  /** Saves option changes of the session (the mode). */
  saveOptions: (options: Record<string, string>) => Promise<void>;
  /** Every config option of the session, for `config_option_update`. */
  configOptions: (session: Session) => SessionConfigOption[];
}

/** Creates the extras of one turn. */
export function turnExtras(input: TurnExtrasInput): TurnExtras {
  const { session, send } = input;
  const recorder = new CheckpointRecorder();
  let plan: PlanEntry[] | undefined;
  // The approval's tool result tells the model of the new mode: from then on it knows it.
  let switched: string | undefined;
  return {
    plan: {
      keep(entries) {
        plan = entries;
      },
      async switchMode(mode) {
        selectMode(session, mode);
        switched = mode;
        await input.saveOptions({ [MODE_CONFIG_ID]: mode });
        await send(modeAnnouncement(mode, input.configOptions(session)));
      },
    },
    checkpointed: (backend, roots) =>
      checkpointingBackend(backend, recorder, (path, words) => send([agentText(`\n(${relativeForTitle(path, roots.cwd)} is ${words}.)\n`)])),
    fill(record) {
      if (plan) record.plan = plan;
      const checkpoint = recorder.result();
      if (checkpoint) record.checkpoint = checkpoint;
      if (switched) record.mode = switched;
    },
  };
}
