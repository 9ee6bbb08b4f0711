/**
 * A slash command sent as the last text block after context blocks (Neovim's CodeCompanion sends a
 * shared file as one text block and `/help` as the next): it is a command; a command that takes
 * arguments (`/init`, user commands) takes the context with it, one that takes none (`/help`,
 * `/clear`, `/compact`, `/undo`) keeps it for the next prompt.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCommandPrompt } from '../../src/app/slash-commands.js';
import { startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess } from '../helpers/in-process.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const shared = text('File: src/a.ts\n```ts\nexport const a = 1;\n```');

describe('splitCommandPrompt', () => {
  it('splits off a last `/…` text block after context blocks', () => {
    const link: ContentBlock = { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' };
    expect(splitCommandPrompt([shared, link, text(' /help')])).toEqual({ line: [text(' /help')], context: [shared, link] });
  });

  it('leaves a prompt alone whose last block is no command line, or that is one block', () => {
    expect(splitCommandPrompt([text('/help'), shared])).toEqual({ line: [text('/help'), shared], context: [] });
    expect(splitCommandPrompt([shared, text('explain /help')])).toEqual({ line: [shared, text('explain /help')], context: [] });
    expect(splitCommandPrompt([text('/clear')])).toEqual({ line: [text('/clear')], context: [] });
    expect(splitCommandPrompt([shared, text('/ path')])).toEqual({ line: [shared, text('/ path')], context: [] });
  });
});

describe('a command after context blocks, through the agent', () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await startFakeOpenAI(streamText(['ok']));
  });
  afterAll(() => server.close());

  it('/help is answered without the model, and the shared file goes with the next prompt', async () => {
    const io = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', OPENAI_CONTEXT_WINDOW: '32768' });
    const sessionId = await io.newSession();
    const before = server.requests.length;
    const help = await io.agent.request('session/prompt', { sessionId, prompt: [shared, text('/help')] });
    expect(help.stopReason).toBe('end_turn');
    expect(server.requests.length).toBe(before);
    expect(io.text(sessionId)).toContain('Commands of openai-acp:');
    expect(io.text(sessionId)).toContain('kept and sent with your next prompt');
    await io.agent.request('session/prompt', { sessionId, prompt: [text('what does it export?')] });
    const user = server.requests.at(-1)!.body.messages.at(-1);
    expect(JSON.stringify(user.content)).toContain('export const a = 1;');
    expect(JSON.stringify(user.content)).toContain('what does it export?');
    // Sent once: the prompt after that has no copy of it.
    await io.agent.request('session/prompt', { sessionId, prompt: [text('thanks')] });
    expect(server.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'thanks' });
    io.close();
  });

  it('/clear after context is a command (no request), and an unknown /word with context goes to the model as typed', async () => {
    const io = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', OPENAI_CONTEXT_WINDOW: '32768' });
    const sessionId = await io.newSession();
    const before = server.requests.length;
    await io.agent.request('session/prompt', { sessionId, prompt: [shared, text('/clear')] });
    expect(server.requests.length).toBe(before);
    expect(io.text(sessionId)).toContain('Conversation cleared');
    await io.agent.request('session/prompt', { sessionId, prompt: [text('/nonsense please')] });
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1).content);
    expect(sent).toContain('export const a = 1;');
    expect(sent).toContain('/nonsense please');
    io.close();
  });

  it('/init after context takes the context with it: the shared file goes to the model with the survey instruction', async () => {
    const io = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_CONTEXT_WINDOW: '32768' });
    const sessionId = await io.newSession();
    await io.agent.request('session/prompt', { sessionId, prompt: [shared, text('/init keep it short')] });
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages.at(-1).content);
    expect(sent).toContain('export const a = 1;');
    expect(sent).toContain('Write an AGENTS.md');
    expect(sent).toContain('The user adds: keep it short');
    expect(io.text(sessionId)).not.toContain('kept and sent with your next prompt');
    io.close();
  });
});
