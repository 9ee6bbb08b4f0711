/**
 * The plan tool: the model's to-do list, the whole list on each call, each entry an ACP
 * `PlanEntry` (content, priority, status). Pure: the definition, the argument check (errors
 * worded for the model), and the list as text.
 *
 * Source: ACP agent plan https://agentclientprotocol.com/protocol/v1/agent-plan (`plan` updates
 * carry the complete list; the client replaces what it shows).
 */
import type { PlanEntry } from '@agentclientprotocol/sdk/unstable';
import type { ChatRequest } from '../../openai/chat-request.js';

/** One entry of a request's `tools`. */
type ChatTool = NonNullable<ChatRequest['tools']>[number];

/** The name the model calls. */
export const PLAN_TOOL_NAME = 'update_plan';

const STATUSES = ['pending', 'in_progress', 'completed'] as const;
const PRIORITIES = ['high', 'medium', 'low'] as const;

/** Most entries kept; a longer list is refused (a plan is for the user to read). */
export const MAX_PLAN_ENTRIES = 50;

/**
 * The request `tools` entry. Kept small (about 100 tokens as JSON): it is sent with every
 * request. `priority` is left out of the schema to save tokens; a model that sends one
 * (`high`, `medium`, `low`) has it kept, else entries are `medium`.
 */
export const PLAN_CHAT_TOOL: ChatTool = {
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

/** The checked list, or what is wrong with it in words for the model. */
export type ParsedPlan = { ok: true; entries: PlanEntry[] } | { ok: false; error: string };

const USAGE = `${PLAN_TOOL_NAME} takes {"entries": [{"content": "…", "status": "pending|in_progress|completed", "priority": "high|medium|low" (optional)}]}`;

/**
 * Checks the raw `arguments` of a plan call. Tolerant where it costs nothing (an entry given as
 * a bare string is a pending step; JSON encoded twice), strict where the user would see nonsense
 * (no content, an unknown status or priority).
 * @returns never throws.
 */
export function parsePlanArguments(raw: string): ParsedPlan {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
    if (typeof value === 'string') value = JSON.parse(value);
  } catch (error) {
    return { ok: false, error: `${PLAN_TOOL_NAME}: the arguments are not valid JSON (${(error as Error).message}). ${USAGE}.` };
  }
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['entries'] : undefined;
  if (!Array.isArray(list)) return { ok: false, error: `${PLAN_TOOL_NAME}: "entries" must be a list. ${USAGE}.` };
  if (list.length > MAX_PLAN_ENTRIES)
    return { ok: false, error: `${PLAN_TOOL_NAME}: ${list.length} entries is too many (at most ${MAX_PLAN_ENTRIES}); merge small steps.` };
  const entries: PlanEntry[] = [];
  for (const [index, item] of list.entries()) {
    const entry = typeof item === 'string' ? { content: item, status: 'pending' } : item;
    const where = `${PLAN_TOOL_NAME}: entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null) return { ok: false, error: `${where} is not an object. ${USAGE}.` };
    const { content, status, priority } = entry as Record<string, unknown>;
    if (typeof content !== 'string' || content.trim() === '') return { ok: false, error: `${where} has no "content". ${USAGE}.` };
    if (!STATUSES.includes(status as never)) return { ok: false, error: `${where} has status ${JSON.stringify(status)}; valid: ${STATUSES.join(', ')}.` };
    if (priority !== undefined && priority !== null && !PRIORITIES.includes(priority as never)) {
      return { ok: false, error: `${where} has priority ${JSON.stringify(priority)}; valid: ${PRIORITIES.join(', ')}.` };
    }
    entries.push({ content: content.trim(), status: status as PlanEntry['status'], priority: (priority ?? 'medium') as PlanEntry['priority'] });
  }
  return { ok: true, entries };
}

/** The list as text, one `[status] content` line per entry (for the client's tool call and the user). */
export function planText(entries: readonly PlanEntry[]): string {
  if (entries.length === 0) return '(empty plan)';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return entries.map((entry) => `${mark[entry.status]} ${entry.content}`).join('\n');
}
