/**
 * `doctor`'s lines about a llama.cpp server's slots (`/props` `total_slots`): whether several
 * sessions each keep their place in its cache, from the same first look the agent takes
 * (`endpoints/slot-probe.ts`: does an idle slot keep its cache, can slots be saved to files), and
 * the flags that make them keep it: `-np N --no-cache-idle-slots`, or `--slot-save-path DIR`
 * (docs/local-servers.md says why).
 */
import { slotPost } from '../endpoints/session-slots.js';
import { probeSlots, slotPolicy, type SlotPost, type SlotProbe } from '../endpoints/slot-probe.js';
import type { FetchLike } from '../openai/http.js';

/** The flags that keep several sessions cached, for the fix line. */
const KEEP_FLAGS = 'start llama-server with `-np N --no-cache-idle-slots` (N: the threads you keep open), or with `--slot-save-path DIR`';

/**
 * The rows for a server with `slots` slots (from its `/props`), as they read after `found`. Pure.
 * @internal checked for each kind of server without one.
 */
export function slotRows(slots: number | undefined, found: SlotProbe | undefined): string[] {
  if (!slots) return [];
  if (slots < 2 || !found)
    return format([
      ['slots', `${slots}: one request at a time, so two threads overwrite each other's cache on every switch`],
      ['fix', KEEP_FLAGS],
    ]);
  const idle = found.keeps === undefined ? 'not known (/completion did not answer)' : found.keeps ? 'kept (--no-cache-idle-slots)' : 'cleared (the default)';
  const rows: [string, string][] = [
    ['slots', `${slots}; idle slots ${idle}; saved to files: ${found.saves ? 'yes (--slot-save-path)' : 'no'}`],
    [
      'threads',
      slotPolicy(found)
        ? 'the server places each request; a switch between threads reads the conversation again'
        : 'each session gets a slot of its own and keeps its cache',
    ],
  ];
  if (slotPolicy(found)) rows.push(['fix', KEEP_FLAGS]);
  return format(rows);
}

/** Looks at the slots of the server at `baseUrl` (three short prompts and a save, as the agent does) and gives the rows. Never rejects. */
export async function readSlotRows(
  baseUrl: string,
  slots: number | undefined,
  options: { headers: Record<string, string>; fetch?: FetchLike | undefined; post?: SlotPost },
): Promise<string[]> {
  if (!slots || slots < 2) return slotRows(slots, undefined);
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return slotRows(slots, await probeSlots(slots, options.post ?? slotPost(root, options.headers, options.fetch)));
}

const format = (rows: [string, string][]) => rows.map(([name, value]) => `    ${name.padEnd(16)}${value}`);
