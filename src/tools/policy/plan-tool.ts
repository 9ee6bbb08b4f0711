/**
 * The plan tool: the model's to-do list, the whole list on each call, each entry an ACP
 * `PlanEntry` (content, priority, status). Its definition, its argument check (the one pipeline,
 * with the entries checked last, in words for the model), the list as text, and the `Tool` whose
 * run the agent loop supplies (`loop/plan-mode.ts`: the `plan` update and the plan mode's question).
 *
 * Source: ACP agent plan https://agentclientprotocol.com/protocol/v1/agent-plan (`plan` updates
 * carry the complete list; the client replaces what it shows).
 */
import type { PlanEntry } from '@agentclientprotocol/sdk/unstable';
import { type ArgumentSpec, checkArguments } from '../calls/check-arguments.js';
import type { ChatToolDefinition, Tool, ToolOutcome, ToolPresentation, ToolRunContext } from '../tool.js';

/** The name the model calls. */
export const PLAN_TOOL_NAME = 'update_plan';

const STATUSES = ['pending', 'in_progress', 'completed'] as const;
const PRIORITIES = ['high', 'medium', 'low'] as const;

/** Most entries kept; a longer list is refused (a plan is for the user to read). */
const MAX_PLAN_ENTRIES = 50;

/**
 * The request `tools` entry. Kept small (about 100 tokens as JSON): it is sent with every
 * request. `priority` is left out of the schema to save tokens; a model that sends one
 * (`high`, `medium`, `low`) has it kept, else entries are `medium`.
 * @internal the tests hold its size (it is sent with every request).
 */
export const PLAN_CHAT_TOOL: ChatToolDefinition = {
  type: 'function',
  function: {
    name: PLAN_TOOL_NAME,
    description: 'Your to-do list for multi-step work; send the whole list each call.',
    parameters: {
      type: 'object',
      properties: {
        entries: {
          type: 'array',
          items: {
            type: 'object',
            properties: { content: { type: 'string' }, status: { type: 'string', enum: [...STATUSES] } },
            required: ['content', 'status'],
          },
        },
      },
      required: ['entries'],
    },
  },
};

/** How a plan call is shown. */
const PLAN_PRESENTATION: ToolPresentation = { title: 'Update the plan', kind: 'think' };

/** The pipeline's view of the plan's arguments: the signature names the entries' shape; the entries are checked last. */
const PLAN_SPEC: ArgumentSpec = {
  name: PLAN_TOOL_NAME,
  schema: {
    properties: { entries: { type: 'array', note: '[{"content": "…", "status": "pending|in_progress|completed", "priority": "high|medium|low" (optional)}]' } },
    required: ['entries'],
  },
  validate(input) {
    const parsed = planEntries(input['entries']);
    return parsed.ok ? { ok: true, value: { entries: parsed.entries } } : { ok: false, problems: [parsed.problem] };
  },
};

/**
 * The entries as ACP plan entries, or what is wrong with them. Tolerant where it costs nothing (an
 * entry given as a bare string is a pending step), strict where the user would see nonsense (no
 * content, an unknown status or priority).
 */
function planEntries(list: unknown): { ok: true; entries: PlanEntry[] } | { ok: false; problem: string } {
  if (!Array.isArray(list)) return { ok: false, problem: '"entries" must be a list' };
  if (list.length > MAX_PLAN_ENTRIES) return { ok: false, problem: `${list.length} entries is too many (at most ${MAX_PLAN_ENTRIES}); merge small steps` };
  const entries: PlanEntry[] = [];
  for (const [index, item] of list.entries()) {
    const entry = typeof item === 'string' ? { content: item, status: 'pending' } : item;
    const where = `entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null) return { ok: false, problem: `${where} is not an object` };
    const { content, status, priority } = entry as Record<string, unknown>;
    if (typeof content !== 'string' || content.trim() === '') return { ok: false, problem: `${where} has no "content"` };
    if (!STATUSES.includes(status as never)) return { ok: false, problem: `${where} has status ${JSON.stringify(status)}; valid: ${STATUSES.join(', ')}` };
    if (priority !== undefined && priority !== null && !PRIORITIES.includes(priority as never))
      return { ok: false, problem: `${where} has priority ${JSON.stringify(priority)}; valid: ${PRIORITIES.join(', ')}` };
    entries.push({ content: content.trim(), status: status as PlanEntry['status'], priority: (priority ?? 'medium') as PlanEntry['priority'] });
  }
  return { ok: true, entries };
}

/**
 * The plan tool, whose checked calls `run` carries out (the loop's plan hooks).
 * @param run - keeps and shows the plan; gets the checked entries and the call's context.
 */
export function planTool(run: (entries: PlanEntry[], ctx: ToolRunContext) => Promise<ToolOutcome>): Tool {
  const { name, description, parameters } = PLAN_CHAT_TOOL.function;
  return {
    name,
    description,
    parameters,
    check: (raw, cutOff) => checkArguments(PLAN_SPEC, raw, cutOff),
    permission: () => ({ permission: 'reads', key: PLAN_TOOL_NAME }),
    present: () => PLAN_PRESENTATION,
    run: (args, ctx) => run(args['entries'] as PlanEntry[], ctx),
  };
}

/** The list as text, one `[status] content` line per entry (for the client's tool call and the user). */
export function planText(entries: readonly PlanEntry[]): string {
  if (entries.length === 0) return '(empty plan)';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return entries.map((entry) => `${mark[entry.status]} ${entry.content}`).join('\n');
}
