/**
 * An MCP server's question as the ACP client's `elicitation/create`: tied to the session and the
 * tool call, only in a mode the client advertised, the answer given back as is; a cancel withdraws it.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { acpElicitation } from '../../../src/tools/mcp/mcp-elicitation.js';
import { mcpNotices } from '../../../src/loop/turn-tools.js';

function fakeClient(answer: (params: any) => Promise<unknown>) {
  const asked: { method: string; params: any; options: any }[] = [];
  const client = {
    request: (method: string, params: any, options: any) => (asked.push({ method, params, options }), answer(params)),
  } as unknown as AgentContext;
  return { client, asked };
}

const form = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };

describe('acpElicitation', () => {
  it('asks in form mode, tied to the session and the tool call, and gives the answer back', async () => {
    const { client, asked } = fakeClient(async () => ({ action: 'accept', content: { name: 'Ada' } }));
    const ask = acpElicitation({ client, sessionId: 's1', toolCallId: 'call-1', modes: { form: true, url: false } });
    expect(await ask(form, new AbortController().signal)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(asked[0]!.method).toBe('elicitation/create');
    expect(asked[0]!.params).toEqual({ sessionId: 's1', toolCallId: 'call-1', mode: 'form', ...form });
  });

  it('passes decline and cancel, and reads anything else as decline', async () => {
    for (const [answer, expected] of [
      [{ action: 'decline' }, 'decline'],
      [{ action: 'cancel' }, 'cancel'],
      [{ action: 'maybe' }, 'decline'],
      [null, 'decline'],
    ] as const) {
      const { client } = fakeClient(async () => answer);
      expect(
        (await acpElicitation({ client, sessionId: 's', toolCallId: 't', modes: { form: true, url: false } })(form, new AbortController().signal)).action,
      ).toBe(expected);
    }
  });

  it('declines a URL question without asking a client that offers no URL mode, and asks one that does', async () => {
    const url = { mode: 'url' as const, message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/auth' };
    const none = fakeClient(async () => ({ action: 'accept' }));
    expect(
      await acpElicitation({ client: none.client, sessionId: 's', toolCallId: 't', modes: { form: true, url: false } })(url, new AbortController().signal),
    ).toEqual({ action: 'decline' });
    expect(none.asked).toEqual([]);
    const some = fakeClient(async () => ({ action: 'accept' }));
    expect(
      await acpElicitation({ client: some.client, sessionId: 's', toolCallId: 't', modes: { form: true, url: true } })(url, new AbortController().signal),
    ).toEqual({ action: 'accept' });
    expect(some.asked[0]!.params).toEqual({
      sessionId: 's',
      toolCallId: 't',
      mode: 'url',
      message: 'Sign in',
      elicitationId: 'e1',
      url: 'https://example.com/auth',
    });
  });

  it('a cancel rejects at once and withdraws the request through its cancellation signal', async () => {
    const { client, asked } = fakeClient(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = acpElicitation({ client, sessionId: 's', toolCallId: 't', modes: { form: true, url: false } })(form, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(asked[0]!.options.cancellationSignal).toBe(controller.signal);
  });
});

describe('mcpNotices', () => {
  it('gives each MCP notice a title, the rest and the fix as its description, and the whole line for clients without notices', () => {
    const state = {
      roots: { cwd: '/', extra: [] },
      mcpList: '',
      mcp: {
        takeNotices: () => [
          'MCP server "files" could not start: spawn /nope ENOENT (command not found)',
          'MCP server "files" stopped; its tools are no longer available in this session',
        ],
      },
    };
    const [failed, stopped] = mcpNotices(state as never);
    expect(failed).toMatchObject({
      severity: 'error',
      title: 'MCP server "files" could not start',
      fallback: { text: 'MCP server "files" could not start: spawn /nope ENOENT (command not found)\n\n' },
    });
    expect(failed!.description).toMatch(/^Spawn \/nope ENOENT \(command not found\)\. Check the server's command/);
    expect(stopped).toMatchObject({
      severity: 'warning',
      title: 'MCP server "files" stopped',
      description: 'Its tools are no longer available in this session.',
    });
  });
});
