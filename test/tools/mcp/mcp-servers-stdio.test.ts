/**
 * McpServers against real stdio MCP servers (fixtures/mcp-stdio-server.mjs, built with the SDK's
 * McpServer): start, tools, calls, failures, cancellation, list_changed, and no process left.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServers, McpServersOptions } from '../../../src/tools/mcp/mcp-servers.js';
import { closeAllMcp, startMcpServers } from '../../../src/tools/mcp/mcp-servers.js';
import { alive, recordingLogger, stdioServer } from './helpers.js';
import { waitFor } from '../../helpers/spawn-agent.js';

const BUILT_INS = new Set(['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command']);
let cwd: string;
const started: McpServers[] = [];

beforeAll(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-stdio-')));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((servers) => servers.close()));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function start(servers: Parameters<typeof startMcpServers>[0], options: Partial<McpServersOptions> = {}) {
  const logger = recordingLogger();
  const mcp = startMcpServers(servers, { cwd, logger, ...options });
  started.push(mcp);
  return { mcp, logger };
}

describe('McpServers over stdio', () => {
  it('lists the tools of a server and calls them, in the session cwd with the given env over ours, without our API key', async () => {
    const began = Date.now();
    const savedKey = process.env['OPENAI_API_KEY'];
    process.env['OPENAI_API_KEY'] = 'sk-never-for-mcp-servers';
    const { mcp, logger } = start([stdioServer('files', undefined, [{ name: 'FIXTURE_ENV', value: 'from-acp' }])]);
    if (savedKey === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = savedKey;
    await mcp.ready();
    const startupMs = Date.now() - began;
    expect(mcp.status()).toEqual([{ server: 'files', state: 'ready', transport: 'stdio', tools: 9 }]);
    const tools = mcp.tools(BUILT_INS, { gemini: false });
    expect(tools.map((t) => t.name)).toEqual([
      'files__echo',
      'files__ping',
      'files__fail',
      'files__throws',
      'files__slow',
      'files__image',
      'files__pid',
      'files__crash',
      'files__change_tools',
    ]);
    const echo = tools[0]!;
    expect(echo).toMatchObject({ server: 'files', tool: 'echo', title: 'files: echo', description: 'Echoes its text', readOnly: true, kind: 'read' });
    expect(echo.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(tools[1]!.parameters).toMatchObject({ type: 'object', properties: {}, required: [] });
    expect(tools[1]).toMatchObject({ readOnly: false, kind: 'other' });

    await expect(mcp.call('files__echo', { text: 'hi' })).resolves.toEqual({
      isError: false,
      text: 'echo: hi',
      images: [],
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    await expect(mcp.call('files__ping', {})).resolves.toMatchObject({ isError: false, text: 'pong' });
    // The server's stderr is logged at debug with the server's name; it ran in cwd with env merged over ours (PATH kept).
    expect(logger.records).toContainEqual(expect.objectContaining({ level: 'debug', msg: `[mcp files] cwd=${cwd} env=from-acp path=set key=unset` }));
    expect(mcp.takeNotices()).toEqual([]);
    console.info(`stdio fixture server: ready (spawn + initialize + tools/list) in ${startupMs} ms`);
  });

  it('offers at most maxTools tools, logging the left-out ones once', async () => {
    const { mcp, logger } = start([stdioServer('files')]);
    await mcp.ready();
    expect(mcp.tools(BUILT_INS, { gemini: false, maxTools: 2 }).map((t) => t.name)).toEqual(['files__echo', 'files__ping']);
    mcp.tools(BUILT_INS, { gemini: false, maxTools: 2 });
    const warnings = logger.records.filter((r) => r.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({ msg: '7 MCP tools left out: past the limit of 2 MCP tools (OpenAI accepts at most 128 tools per request)' }),
    ]);
    expect(warnings[0]!.fields?.leftOut).toContain('files__change_tools');
    // A left-out tool cannot be called: the model was not offered it.
    await expect(mcp.call('files__pid', {})).resolves.toMatchObject({ isError: true });
    // By default the built-ins and the MCP tools share OpenAI's 128.
    expect(mcp.tools(new Set(Array.from({ length: 125 }, (_, i) => `builtin_${i}`)), { gemini: false })).toHaveLength(3);
  });

  it('turns isError, thrown handler errors and images into results', async () => {
    const { mcp } = start([stdioServer('files')]);
    await mcp.ready();
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('files__fail', {})).resolves.toMatchObject({ isError: true, text: 'it failed on purpose' });
    const thrown = await mcp.call('files__throws', {});
    expect(thrown.isError).toBe(true);
    expect(thrown.text).toContain('kaboom');
    const image = await mcp.call('files__image', {});
    expect(image).toMatchObject({ isError: false, text: 'a pixel', images: [{ mimeType: 'image/png' }] });
    expect(image.content.map((block) => block.type)).toEqual(['text', 'image']);
    await expect(mcp.call('files__nope', {})).resolves.toMatchObject({ isError: true, text: 'There is no MCP tool named "files__nope".' });
  });

  it('reports a command that does not exist once, by name and reason, and keeps the other servers', async () => {
    const { mcp, logger } = start([{ name: 'files', command: '/nope/missing-mcp', args: [], env: [] }, stdioServer('good')]);
    await mcp.ready();
    expect(mcp.takeNotices()).toEqual(['MCP server "files" could not start: spawn /nope/missing-mcp ENOENT (command not found)']);
    expect(mcp.takeNotices()).toEqual([]);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    expect(mcp.status().map((s) => s.state)).toEqual(['failed', 'ready']);
    const names = mcp.tools(BUILT_INS, { gemini: false }).map((t) => t.name);
    expect(names).toContain('good__ping');
    expect(names.some((n) => n.startsWith('files__'))).toBe(false);
    await expect(mcp.call('good__ping', {})).resolves.toMatchObject({ text: 'pong' });
  });

  it('reports a server that exits at once, with its last stderr line', async () => {
    const { mcp } = start([stdioServer('quitter', 'exit')]);
    await mcp.ready();
    const [notice, ...rest] = mcp.takeNotices();
    expect(rest).toEqual([]);
    expect(notice).toMatch(/^MCP server "quitter" could not start: the server closed the connection before it was ready/);
    expect(notice).toContain('fatal: the fixture was told to exit');
  });

  it('stops waiting after startupMs for a server that never answers initialize, then abandons and kills it', async () => {
    const began = Date.now();
    // The connect limit leaves the good server time to start (~0.6 s on a busy 2-core machine,
    // more than 4 s with two suites running on it).
    const { mcp } = start([stdioServer('mute', 'no-init'), stdioServer('good')], { startupMs: 3_000, connectTimeoutMs: 15_000 });
    await mcp.ready();
    expect(Date.now() - began).toBeGreaterThanOrEqual(3_000 - 5);
    // ready() came at the startup limit, not at the connect limit: the mute server is still starting.
    expect(mcp.status()[0]!.state).not.toBe('failed');
    expect(mcp.takeNotices()).toContain('MCP server "mute" is still starting after 3 s; its tools will be added once it is ready');
    // The good server's tools are offered as soon as it is ready.
    await waitFor(() => mcp.tools(BUILT_INS, { gemini: false }).some((t) => t.name === 'good__ping'));
    const [pid] = mcp.pids();
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => mcp.status()[0]!.state === 'failed');
    expect(mcp.takeNotices()).toEqual([
      'MCP server "mute" could not start: it did not finish starting within 15 s (timed out) (its last words on stderr: cwd=' +
        cwd +
        ' env= path=set key=unset)',
    ]);
    await waitFor(() => !alive(pid!), 3_000);
  });

  it('gives a timed-out notice at ready() when the connect limit is below the startup limit', async () => {
    const { mcp } = start([stdioServer('mute', 'no-init')], { startupMs: 500, connectTimeoutMs: 200 });
    await mcp.ready();
    expect(mcp.takeNotices()).toEqual([expect.stringMatching(/^MCP server "mute" could not start: it did not finish starting within 0\.2 s \(timed out\)/)]);
  });

  it('rejects a call promptly with the reason when its signal aborts, and the server stays usable', async () => {
    const { mcp } = start([stdioServer('files')]);
    await mcp.ready();
    mcp.tools(BUILT_INS, { gemini: false });
    const controller = new AbortController();
    const reason = new Error('turn cancelled');
    setTimeout(() => controller.abort(reason), 150);
    // `slow` answers only after 20 s, past the test's time limit: the rejection is the abort's.
    await expect(mcp.call('files__slow', {}, { signal: controller.signal })).rejects.toBe(reason);
    await expect(mcp.call('files__ping', {}, { signal: new AbortController().signal })).resolves.toMatchObject({ text: 'pong' });
    await expect(mcp.call('files__ping', {}, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('turns a call past toolTimeoutMs into an error result', async () => {
    const { mcp } = start([stdioServer('files')], { toolTimeoutMs: 300 });
    await mcp.ready();
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('files__slow', {})).resolves.toMatchObject({
      isError: true,
      text: 'MCP tool "slow" of server "files" did not answer within 0.3 s (timed out).',
    });
    await expect(mcp.call('files__ping', {})).resolves.toMatchObject({ text: 'pong' });
  });

  it('turns a server that dies during a call into an error result and a notice; its tools keep their places, a call says why it cannot run', async () => {
    const { mcp } = start([stdioServer('files')]);
    await mcp.ready();
    const offered = JSON.stringify(mcp.tools(BUILT_INS, { gemini: false }));
    await expect(mcp.call('files__crash', {})).resolves.toMatchObject({
      isError: true,
      text: 'MCP tool "crash" of server "files" failed: the server closed the connection during the call.',
    });
    await waitFor(() => mcp.status()[0]!.state === 'failed');
    expect(mcp.takeNotices()).toEqual(['MCP server "files" stopped; its tools are no longer available in this session']);
    // The same bytes in the request's tools (a server's prefix cache keeps its work).
    expect(JSON.stringify(mcp.tools(BUILT_INS, { gemini: false }))).toBe(offered);
    await expect(mcp.call('files__ping', {})).resolves.toMatchObject({
      isError: true,
      text: expect.stringMatching(/^MCP server "files" is not running \(it stopped\); its tool "ping" cannot be called\.$/),
    });
  });

  it('refreshes the tools after list_changed, adding new tools after the ones offered before', async () => {
    let changes = 0;
    const { mcp } = start([stdioServer('files')], { onToolsChanged: () => void (changes += 1) });
    await mcp.ready();
    const before = changes;
    const first = mcp.tools(BUILT_INS, { gemini: false });
    // Unchanged servers: the same descriptors, not described again for each request.
    expect(mcp.tools(BUILT_INS, { gemini: false })).toBe(first);
    expect(mcp.tools(BUILT_INS, { gemini: true })).not.toBe(first);
    mcp.tools(BUILT_INS, { gemini: false });
    await expect(mcp.call('files__change_tools', {})).resolves.toMatchObject({ text: 'added added_1' });
    await waitFor(() => mcp.tools(BUILT_INS, { gemini: false }).some((t) => t.name === 'files__added_1'));
    expect(changes).toBeGreaterThan(before);
    // The tools offered before keep their places; the new one comes after them.
    const after = mcp.tools(BUILT_INS, { gemini: false });
    expect(after.slice(0, first.length).map((t) => t.name)).toEqual(first.map((t) => t.name));
    expect(after.at(-1)!.name).toBe('files__added_1');
    await expect(mcp.call('files__added_1', {})).resolves.toMatchObject({ isError: false, text: 'added 1' });
    // Two changes in a row, the second during the re-list of the first: both are seen.
    await Promise.all([mcp.call('files__change_tools', {}), mcp.call('files__change_tools', {})]);
    await waitFor(() => mcp.tools(BUILT_INS, { gemini: false }).some((t) => t.name === 'files__added_3'));
  });

  it('close() leaves no server process, even one that ignores stdin EOF and SIGTERM', async () => {
    const { mcp } = start([stdioServer('a'), stdioServer('stubborn', 'ignore-eof')]);
    await mcp.ready();
    const pids = mcp.pids();
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    await mcp.close();
    expect(pids.filter(alive)).toEqual([]);
    expect(mcp.status().map((s) => s.state)).toEqual(['closed', 'closed']);
    await expect(mcp.call('a__ping', {})).resolves.toMatchObject({ isError: true });
  });

  it('close() during a start abandons it without a notice and leaves no process', async () => {
    const { mcp } = start([stdioServer('mute', 'no-init'), stdioServer('late')]);
    await waitFor(() => mcp.pids().length === 2);
    const pids = mcp.pids();
    await mcp.close();
    expect(pids.filter(alive)).toEqual([]);
    expect(mcp.status().map((s) => s.state)).toEqual(['closed', 'closed']);
    expect(mcp.takeNotices()).toEqual([]);
    await expect(mcp.ready()).resolves.toBeUndefined();
  });

  it('closeAllMcp() closes every session', async () => {
    const one = start([stdioServer('one')]).mcp;
    const two = start([stdioServer('two')]).mcp;
    await Promise.all([one.ready(), two.ready()]);
    const pids = [...one.pids(), ...two.pids()];
    expect(pids.filter(alive)).toHaveLength(2);
    await closeAllMcp();
    expect(pids.filter(alive)).toEqual([]);
  });

  it('loads nothing and is ready at once without servers', async () => {
    const { mcp } = start([]);
    await mcp.ready();
    expect(mcp.tools(BUILT_INS, { gemini: false })).toEqual([]);
    expect(mcp.takeNotices()).toEqual([]);
  });
});
