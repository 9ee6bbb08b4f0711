/**
 * Runs a built-in tool call whose arguments were checked (`check-arguments.ts`), turning a
 * {@link ToolError} into a failed outcome for the model. The tool-call runner calls it after
 * announcing the call.
 */
import type { AnyBuiltinTool } from './tool-module.js';
import { textContent } from '../present/present-args.js';
import type { BuiltinContext, BuiltinOutcome } from './tool-context.js';
import { ToolError } from '../tool-types.js';

/**
 * Runs one built-in tool call.
 * @param args - the arguments as `checkArguments` returned them (they are not checked again).
 * @returns the outcome; `failed` for anything the model should hear about (a {@link ToolError}:
 *   paths outside the workspace, missing or binary files, edits that do not apply, non-zero exit
 *   codes…). For `run_command`, `release` frees the client terminal: call it after the
 *   `tool_call_update` embedding it was sent.
 * @throws the abort signal's reason when `ctx.signal` aborts (a running command is killed first);
 *   any error that is not a ToolError (a bug, or the client connection failing).
 */
export async function executeBuiltin(tool: AnyBuiltinTool, args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinOutcome> {
  try {
    ctx.signal.throwIfAborted();
    return await tool.run(args, ctx);
  } catch (error) {
    // Cancelled: whatever failed on the way out, the loop must see the abort itself.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (error instanceof ToolError) return failure(error.message);
    throw error;
  }
}

/** A failed outcome carrying `message` to the model and to the client. */
export function failure(message: string): BuiltinOutcome {
  return { failed: true, forModel: message, content: [textContent(message)] };
}
