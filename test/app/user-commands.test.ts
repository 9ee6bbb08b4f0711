import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLASH_COMMANDS } from '../../src/app/slash-commands.js';
import { UserCommands, type CommandList } from '../../src/app/user-commands.js';

/** One session's kept commands, as its live session keeps them. */
const kept = (): CommandList => ({ commands: undefined });
import { recordingLogger } from '../tools/mcp/helpers.js';

let top: string;
beforeEach(() => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'user-commands-')));
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

function write(path: string, text: string | Buffer): void {
  mkdirSync(join(top, path, '..'), { recursive: true });
  writeFileSync(join(top, path), text);
}

const signal = new AbortController().signal;
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('UserCommands', () => {
  it('lists built-ins, then project commands over .claude ones over user ones; a built-in name is never taken (logged)', async () => {
    write('p/.openai-acp/commands/review.md', '---\ndescription: Project review\nargument-hint: <focus>\n---\nReview: $ARGUMENTS');
    write('p/.claude/commands/review.md', 'Claude review');
    write('p/.claude/commands/explain.md', 'Explain $1 briefly');
    write('config/commands/review.md', 'User review');
    write('config/commands/daily.md', 'Daily notes');
    write('config/commands/help.md', 'my help');
    const logger = recordingLogger();
    const commands = new UserCommands(logger, () => SLASH_COMMANDS, join(top, 'config'));
    const s = kept();
    const list = await commands.refresh(s, join(top, 'p'), undefined, true);
    expect(list!.map((command) => command.name)).toEqual([...SLASH_COMMANDS.map((command) => command.name), 'review', 'explain', 'daily']);
    expect(list!.find((command) => command.name === 'review')).toEqual({ name: 'review', description: 'Project review (project)', input: { hint: '<focus>' } });
    expect(list!.find((command) => command.name === 'daily')!.description).toBe('Daily notes (user)');
    expect(logger.text()).toContain(`the command file ${join(top, 'config/commands/help.md')} is not used: /help is a built-in command`);
    expect(await commands.expand(s, text('/review the parser'), undefined, signal)).toEqual({ kind: 'prompt', prompt: text('Review: the parser') });
    expect(await commands.expand(s, text('/explain lexer.ts now'), undefined, signal)).toEqual({ kind: 'prompt', prompt: text('Explain lexer.ts briefly') });
    expect(await commands.expand(s, text('/unknown thing'), undefined, signal)).toBeUndefined();
  });

  it('skips a file with bad UTF-8 or broken front matter (logged with its path) and keeps the others', async () => {
    write('p/.openai-acp/commands/bad.md', Buffer.from([0x2d, 0xff, 0xfe]));
    write('p/.openai-acp/commands/broken.md', '---\ndescription: x\n');
    write('p/.openai-acp/commands/good.md', 'Good');
    const logger = recordingLogger();
    const commands = new UserCommands(logger, () => [], undefined);
    const s = kept();
    expect((await commands.refresh(s, join(top, 'p'), undefined))!.map((command) => command.name)).toEqual(['good']);
    expect(logger.text()).toContain(`the command file ${join(top, 'p/.openai-acp/commands/bad.md')} is skipped: it is not valid UTF-8`);
    expect(logger.text()).toContain(`the command file ${join(top, 'p/.openai-acp/commands/broken.md')} is skipped: its front matter has no closing ---`);
  });

  it('reads no command file leading out of the cwd: a symlinked file or folder is skipped (logged), nothing of it advertised', async () => {
    write('outside/secret.md', 'outside secret first line');
    write('p/.openai-acp/commands/good.md', 'Good');
    symlinkSync(join(top, 'outside/secret.md'), join(top, 'p/.openai-acp/commands/leak.md'));
    symlinkSync(join(top, 'outside'), join(top, 'p/.claude'));
    mkdirSync(join(top, 'outside/commands'));
    write('outside/commands/other.md', 'outside other');
    const logger = recordingLogger();
    const commands = new UserCommands(logger, () => [], undefined);
    const s = kept();
    const list = await commands.refresh(s, join(top, 'p'), undefined);
    expect(list!.map((command) => command.name)).toEqual(['good']);
    expect(JSON.stringify(list)).not.toContain('outside');
    expect(logger.text()).toContain(`the command file ${join(top, 'p/.openai-acp/commands/leak.md')} could not be read`);
  });

  it('returns the list again only when the files changed', async () => {
    write('p/.openai-acp/commands/a.md', 'A');
    const commands = new UserCommands(recordingLogger(), () => [], undefined);
    const s = kept();
    expect(await commands.refresh(s, join(top, 'p'), undefined)).toHaveLength(1);
    expect(await commands.refresh(s, join(top, 'p'), undefined)).toBeUndefined();
    write('p/.openai-acp/commands/b.md', 'B');
    expect((await commands.refresh(s, join(top, 'p'), undefined))!.map((command) => command.name)).toEqual(['a', 'b']);
    write('p/.openai-acp/commands/a.md', '---\ndescription: changed\n---\nA');
    utimesSync(join(top, 'p/.openai-acp/commands/a.md'), new Date(), new Date(Date.now() + 5000));
    expect((await commands.refresh(s, join(top, 'p'), undefined))![0]!.description).toBe('changed (project)');
  });
});
