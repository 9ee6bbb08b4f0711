/**
 * Runs a built-in tool call: checks its arguments, dispatches to the tool, and turns a
 * {@link ToolError} into a failed outcome for the model. The tool-call runner calls it after
 * announcing the call with `presentToolCall` (present.ts).
 */
import type { BuiltinArgs } from './arguments.js';
import { validateToolArguments } from './arguments.js';
import { executeRunCommand } from './command-tool.js';
import { executeFetchUrl } from './fetch/fetch-url.js';
import { executeEditFile, executeReadFile, executeWriteFile } from './file-tools.js';
import { formatListing, listDirectory } from './local/list-directory.js';
import { formatSearch, searchFiles } from './local/search-files.js';
import { capForModel } from './output-cap.js';
import { textContent } from './present.js';
import type { BuiltinContext, BuiltinOutcome } from './tool-context.js';
import { ToolError, type BuiltinToolName } from './tool-types.js';
import { resolveToolPath } from './workspace.js';

/**
 * Runs one built-in tool call.
 * @param args - the arguments (from `parseToolArguments`, or any object: they are checked again here,
 *   and bad ones give a failed outcome naming the parameters).
 * @returns the outcome; `failed` for anything the model should hear about (a {@link ToolError}:
 *   bad arguments, paths outside the workspace, missing or binary files, edits that do not apply,
 *   non-zero exit codes…). For `run_command`, `release` frees the client terminal: call it after the
 *   `tool_call_update` embedding it was sent.
 * @throws the abort signal's reason when `ctx.signal` aborts (a running command is killed first);
 *   any error that is not a ToolError (a bug, or the client connection failing).
 */
export async function executeBuiltin(name: BuiltinToolName, args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinOutcome> {
  const checked = validateToolArguments(name, args);
  if (!checked.ok) return failure(checked.error);
  try {
    ctx.signal.throwIfAborted();
    return await dispatch(name, checked.args as never, ctx);
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

async function dispatch<N extends BuiltinToolName>(name: N, args: BuiltinArgs[N], ctx: BuiltinContext): Promise<BuiltinOutcome> {
  switch (name) {
    case 'read_file':
      return executeReadFile(args as BuiltinArgs['read_file'], ctx);
    case 'write_file':
      return executeWriteFile(args as BuiltinArgs['write_file'], ctx);
    case 'edit_file':
      return executeEditFile(args as BuiltinArgs['edit_file'], ctx);
    case 'run_command':
      return executeRunCommand(args as BuiltinArgs['run_command'], ctx);
    case 'fetch_url':
      return executeFetchUrl((args as BuiltinArgs['fetch_url']).url, ctx.signal, ctx.fetch);
    case 'list_directory': {
      const listing = await listDirectory(resolveToolPath((args as BuiltinArgs['list_directory']).path ?? '.', ctx.roots), ctx.roots, ctx.signal);
      const text = formatListing(listing, ctx.roots.cwd);
      return {
        failed: false,
        forModel: capForModel(text, ctx.limits).text,
        content: [textContent(text)],
        locations: [{ path: listing.dir }],
        rawOutput: { path: listing.dir, entries: listing.entries.length, more: listing.more, ignored: listing.ignored },
      };
    }
    case 'search_files': {
      const a = args as BuiltinArgs['search_files'];
      const request = { pattern: a.pattern, path: resolveToolPath(a.path ?? '.', ctx.roots), glob: a.glob };
      const result = await searchFiles(request, ctx.roots, ctx.signal, ctx.search);
      const text = formatSearch(result, request, ctx.roots.cwd);
      return {
        failed: false,
        forModel: capForModel(text, ctx.limits).text,
        content: [textContent(text)],
        rawOutput: { matches: result.matches.length, filesSearched: result.filesSearched, moreMatches: result.moreMatches, timedOut: result.timedOut, engine: result.engine },
      };
    }
  }
  throw new Error(`not a built-in tool: ${String(name)}`);
}
