/**
 * A built-in tool as the loop sees it (`Tool`), bound to a workspace for a test: local files at
 * `/w/proj` unless a backend and roots are given, default settings.
 */
import { createLocalBackend } from '../../src/tools/backends/local-backend.js';
import { builtinTools } from '../../src/tools/builtin/builtin-tools.js';
import type { BuiltinToolName } from '../../src/tools/builtin/registry.js';
import type { Tool, ToolRunContext } from '../../src/tools/tool.js';

/** The roots a tool gets when a test gives none. */
const TEST_ROOTS = { cwd: '/w/proj', extra: [] };

/** The built-in tool `name` bound to `workspace` (local files at {@link TEST_ROOTS} by default). */
export function builtin(name: BuiltinToolName, workspace: Partial<Parameters<typeof builtinTools>[0]> = {}): Tool {
  const roots = workspace.roots ?? TEST_ROOTS;
  const tools = builtinTools({ backend: workspace.backend ?? createLocalBackend(roots), roots, settings: workspace.settings ?? {} });
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
}

/** The context a tool's `run` gets from the runner, with nothing asked and nothing sent. */
export function runContext(over: Partial<ToolRunContext> = {}): ToolRunContext {
  return {
    toolCallId: 'call-1',
    toolCall: { toolCallId: 'call-1' },
    signal: new AbortController().signal,
    send: async () => undefined,
    onTerminal: async () => undefined,
    runsUnasked: () => true,
    ...over,
  };
}
