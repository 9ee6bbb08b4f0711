import { describe, expect, it } from 'vitest';
import { McpToolList } from '../../../src/tools/mcp/mcp-tool-list.js';
import type { McpToolInfo } from '../../../src/tools/mcp/mcp-tools.js';
import { captureLogger } from '../../helpers/session-store-fixtures.js';

const options = { gemini: false, maxTools: 100 };
const reserved = new Set(['read_file']);
const tool = (name: string, description = `does ${name}`): McpToolInfo => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
});

/** What a process offered once its servers were ready: the list saved with the session. */
function savedList() {
  const before = new McpToolList<string>();
  const a = [tool('search'), tool('fetch')];
  const b = [tool('query')];
  return before.offer(
    [
      { server: 'A', name: 'docs', tools: a },
      { server: 'B', name: 'db', tools: b },
    ],
    reserved,
    options,
    captureLogger(),
  );
}

describe('McpToolList.seed: a saved list offered before the servers are ready', () => {
  it('offers the saved list byte for byte while no server is ready, and keeps its bytes once a late server is', () => {
    const saved = savedList();
    const bytes = JSON.stringify(saved);
    const list = new McpToolList<string>();
    list.seed(JSON.parse(bytes));
    // Restarted: no server ready yet.
    expect(JSON.stringify(list.offer([], reserved, options, captureLogger()))).toBe(bytes);
    // The second server answers first, then the first: the places stay those saved.
    expect(JSON.stringify(list.offer([{ server: 'B', name: 'db', tools: [tool('query')] }], reserved, options, captureLogger()))).toBe(bytes);
    const both = list.offer(
      [
        { server: 'A', name: 'docs', tools: [tool('search'), tool('fetch')] },
        { server: 'B', name: 'db', tools: [tool('query')] },
      ],
      reserved,
      options,
      captureLogger(),
    );
    expect(JSON.stringify(both)).toBe(bytes);
    expect(list.resolve(saved[0]!.name)).toEqual({ server: 'A', tool: 'search' });
  });

  it('has no target for a seeded tool whose server is not ready, but names that server', () => {
    const saved = savedList();
    const list = new McpToolList<string>();
    list.seed(saved);
    list.offer([{ server: 'B', name: 'db', tools: [tool('query')] }], reserved, options, captureLogger());
    const search = saved.find((t) => t.tool === 'search')!;
    expect(list.resolve(search.name)).toBeUndefined();
    expect(list.serverOf(search.name)).toBe('docs');
    expect(list.resolve(saved.find((t) => t.tool === 'query')!.name)).toEqual({ server: 'B', tool: 'query' });
    expect(list.serverOf('no_such_tool')).toBeUndefined();
  });

  it('takes a changed description from the ready server in the saved place, and is ignored once a list was offered', () => {
    const saved = savedList();
    const list = new McpToolList<string>();
    list.seed(saved);
    const offered = list.offer([{ server: 'A', name: 'docs', tools: [tool('search', 'searches better'), tool('fetch')] }], reserved, options, captureLogger());
    expect(offered.map((t) => t.tool)).toEqual(saved.map((t) => t.tool));
    expect(offered[0]!.description).toBe('searches better');
    list.seed([]);
    expect(list.serverOf(saved[0]!.name)).toBe('docs');
  });
});
