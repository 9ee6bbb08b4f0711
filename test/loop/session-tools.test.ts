/**
 * The MCP tool list saved with a session: written only when the list a request offers differs
 * from the one saved last (or read back at load), never for a session without MCP servers; and
 * each turn's `offer()` hands a changed list to `saveMcpTools`.
 */
import { describe, expect, it } from 'vitest';
import { mcpToolsToSave, type SessionToolState } from '../../src/loop/session-tools.js';
import { prepareTurnTools } from '../../src/loop/turn-tools.js';
import { createLogger } from '../../src/shared/log.js';
import type { Session } from '../../src/sessions/session.js';
import type { McpServers, McpToolDescriptor } from '../../src/tools/index.js';
import { fakeClient } from '../helpers/fake-acp-client.js';

const tool = (name: string, description = `does ${name}`): McpToolDescriptor => ({
  name: `fx__${name}`,
  server: 'fx',
  tool: name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  readOnly: false,
  kind: 'other',
  title: `fx: ${name}`,
});

/** A session's tool state whose MCP servers offer `list()` (the same array while it is unchanged, as McpServers does). */
function stateWith(list: () => readonly McpToolDescriptor[] | undefined, mcpSaved?: string): SessionToolState {
  const mcp = { tools: () => list() ?? [], takeNotices: () => [], call: async () => ({ isError: false, text: '', images: [], content: [] }) };
  return { roots: { cwd: '/w', extra: [] }, mcp: list() === undefined ? undefined : (mcp as unknown as McpServers), mcpList: '', mcpSaved };
}

describe('mcpToolsToSave', () => {
  it('gives the list the first time it has tools, then only when its serialized descriptors change', () => {
    const state = stateWith(() => []);
    expect(mcpToolsToSave(state, [])).toBeUndefined();
    const first = [tool('ping'), tool('echo')];
    expect(mcpToolsToSave(state, first)).toEqual(first);
    expect(mcpToolsToSave(state, first)).toBeUndefined();
    // Another array with the same bytes (a server refreshed its list to the same tools).
    expect(mcpToolsToSave(state, JSON.parse(JSON.stringify(first)))).toBeUndefined();
    const described = [tool('ping', 'answers pong now'), tool('echo')];
    expect(mcpToolsToSave(state, described)).toEqual(described);
    const more = [...described, tool('fetch')];
    expect(mcpToolsToSave(state, more)).toEqual(more);
    expect(mcpToolsToSave(state, [...more])).toBeUndefined();
  });

  it('writes nothing for the list a loaded session read back', () => {
    const saved = [tool('ping')];
    const state = stateWith(() => saved, JSON.stringify(saved));
    expect(mcpToolsToSave(state, JSON.parse(JSON.stringify(saved)))).toBeUndefined();
    expect(mcpToolsToSave(state, [tool('echo')])).toEqual([tool('echo')]);
  });

  it('writes nothing for a session without MCP servers', () => {
    const state = stateWith(() => undefined);
    expect(mcpToolsToSave(state, [tool('ping')])).toBeUndefined();
  });
});

describe("a turn's offer() saves the MCP tools when they changed", () => {
  const session = { id: 's1', cwd: '/w', createdAt: '', records: [], model: 'm', options: {} } as unknown as Session;
  const prepare = (state: SessionToolState, saved: McpToolDescriptor[][]) =>
    prepareTurnTools({
      session,
      state,
      client: fakeClient().client,
      capabilities: { readTextFile: false, writeTextFile: false, terminal: false },
      profile: {},
      logger: createLogger({ level: 'error', write: () => undefined }),
      saveOptions: async () => undefined,
      saveMcpTools: async (tools) => void saved.push(tools),
    });

  it('once per change, across turns of the session', () => {
    let list: readonly McpToolDescriptor[] = [tool('ping')];
    const state = stateWith(() => list);
    const saved: McpToolDescriptor[][] = [];
    const turn = prepare(state, saved);
    expect(
      turn
        .offer()
        .definitions()
        .map((d) => d.function.name),
    ).toContain('fx__ping');
    turn.offer();
    expect(saved).toEqual([[tool('ping')]]);
    list = [tool('ping'), tool('echo')];
    prepare(state, saved).offer();
    prepare(state, saved).offer();
    expect(saved).toEqual([[tool('ping')], [tool('ping'), tool('echo')]]);
  });

  it('never for a session without MCP servers', () => {
    const saved: McpToolDescriptor[][] = [];
    prepare(
      stateWith(() => undefined),
      saved,
    ).offer();
    expect(saved).toEqual([]);
  });
});
