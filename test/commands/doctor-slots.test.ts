/** `doctor`'s slot lines: what several threads get on a llama.cpp server, and the flags that keep them when it clears idle slots. */
import { describe, expect, it } from 'vitest';
import { readSlotRows, slotRows } from '../../src/commands/doctor-slots.js';

describe('doctor: slots', () => {
  it('says each session keeps its cache where idle slots are kept or saved', () => {
    const kept = slotRows(4, { keeps: true, saves: false }).join('\n');
    expect(kept).toMatch(/slots\s+4; idle slots kept \(--no-cache-idle-slots\); saved to files: no/);
    expect(kept).toMatch(/each session gets a slot of its own/);
    expect(kept).not.toMatch(/fix/);
    expect(slotRows(4, { keeps: false, saves: true }).join('\n')).toMatch(/idle slots cleared \(the default\); saved to files: yes/);
  });

  it('names the flags where idle slots are cleared and not saved, or the server has one slot', () => {
    const cleared = slotRows(4, { keeps: false, saves: false }).join('\n');
    expect(cleared).toMatch(/reads the conversation again/);
    expect(cleared).toMatch(/fix\s+start llama-server with `-np N --no-cache-idle-slots`.*`--slot-save-path DIR`/);
    expect(slotRows(1, undefined).join('\n')).toMatch(/slots\s+1: one request at a time[\s\S]*fix/);
    expect(slotRows(undefined, undefined)).toEqual([]);
  });

  it('looks at the slots as the agent does', async () => {
    const paths: string[] = [];
    const rows = await readSlotRows('http://127.0.0.1:1/v1', 2, {
      headers: {},
      post: async (path) => {
        paths.push(path);
        return path === '/completion' ? { timings: { prompt_n: 20, cache_n: paths.length === 3 ? 19 : 0 } } : undefined;
      },
    });
    expect(paths).toEqual(['/completion', '/completion', '/completion', '/slots/1?action=save']);
    expect(rows.join('\n')).toMatch(/idle slots kept/);
  });
});
