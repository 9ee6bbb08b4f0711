/**
 * `parseSlashCommand`: only a prompt of exactly one text block reading `/clear`, `/compact` or
 * `/help` (optionally followed by whitespace and an argument) is a command; everything else goes
 * to the model as typed.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slashHelpText, parseSlashCommand, SLASH_COMMANDS } from '../../src/app/slash-commands.js';
import { COMPACT_INSTRUCTION } from '../../src/context/compaction.js';

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const image: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };

describe('parseSlashCommand recognises the three commands', () => {
  it.each([
    ['/clear', 'clear'],
    ['/compact', 'compact'],
    ['/help', 'help'],
    ['  /clear  ', 'clear'],
    ['\n/help\n', 'help'],
    ['\t/compact', 'compact'],
    ['/compact keep the file paths', 'compact'],
    ['/help me please', 'help'],
    ['/clear\nand a second line', 'clear'],
    ['/clear\tnow', 'clear'],
  ] as const)('%j is /%s', (typed, name) => {
    expect(parseSlashCommand([text(typed)])).toBe(name);
  });
});

describe('parseSlashCommand leaves everything else to the model', () => {
  it.each([
    ['', 'empty text'],
    ['clear', 'no slash'],
    ['/', 'a bare slash'],
    ['/unknown', 'an unknown command'],
    ['/clearall', 'a longer word starting with a command'],
    ['/helpful tips', 'a longer word followed by an argument'],
    ['/Clear', 'upper case'],
    ['/HELP', 'all upper case'],
    ['please /clear', 'leading text'],
    ['/ clear', 'a space after the slash'],
    ['//clear', 'a doubled slash'],
    ['/clear/now', 'a slash right after the name'],
    ['/compact:', 'punctuation right after the name'],
    ['/usr/bin/env node', 'a path'],
  ])('%j (%s)', (typed) => {
    expect(parseSlashCommand([text(typed)])).toBeUndefined();
  });

  it('an empty prompt', () => {
    expect(parseSlashCommand([])).toBeUndefined();
  });

  it('two text blocks, even when the first is a command', () => {
    expect(parseSlashCommand([text('/clear'), text('more')])).toBeUndefined();
    expect(parseSlashCommand([text('/help'), text('')])).toBeUndefined();
  });

  it('a command with an image, or an image alone', () => {
    expect(parseSlashCommand([text('/compact'), image])).toBeUndefined();
    expect(parseSlashCommand([image, text('/compact')])).toBeUndefined();
    expect(parseSlashCommand([image])).toBeUndefined();
  });

  it('a resource or resource link whose text is a command', () => {
    expect(parseSlashCommand([{ type: 'resource_link', uri: 'file:///clear', name: '/clear' }])).toBeUndefined();
    expect(parseSlashCommand([{ type: 'resource', resource: { uri: 'file:///a.txt', text: '/clear' } }])).toBeUndefined();
  });
});

describe('parseSlashCommand on any text', () => {
  const names = SLASH_COMMANDS.map((command) => command.name);

  it('is a known command only when the trimmed text starts with "/name" followed by whitespace or nothing', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('', ...names.map((name) => `/${name}`)),
        fc.string({ maxLength: 30 }),
        (before, command, after) => {
          const typed = `${before}${command}${after}`;
          const result = parseSlashCommand([text(typed)]);
          if (result === undefined) return;
          const trimmed = typed.replace(/^\s+/, '');
          expect(names).toContain(result);
          expect(trimmed.startsWith(`/${result}`)).toBe(true);
          const rest = trimmed.slice(result.length + 1);
          expect(rest === '' || /^\s/.test(rest)).toBe(true);
        },
      ),
    );
  });

  it('always recognises a command surrounded by whitespace and followed by a space and any argument', () => {
    const blank = fc.stringMatching(/^[ \t\n\r]{0,4}$/);
    fc.assert(
      fc.property(blank, fc.constantFrom(...names), fc.option(fc.string({ maxLength: 40 }), { nil: undefined }), (lead, name, argument) => {
        const typed = `${lead}/${name}${argument === undefined ? '' : ` ${argument}`}`;
        expect(parseSlashCommand([text(typed)])).toBe(name);
      }),
    );
  });
});

describe('the advertised commands', () => {
  it('are clear, compact, undo, help and init, each with a description', () => {
    expect(SLASH_COMMANDS.map((command) => command.name)).toEqual(['clear', 'compact', 'undo', 'help', 'init']);
    for (const command of SLASH_COMMANDS) expect(command.description.length).toBeGreaterThan(10);
  });

  it('/help lists every command with its description', () => {
    const help = slashHelpText();
    for (const command of SLASH_COMMANDS) expect(help).toContain(`/${command.name}: ${command.description}`);
  });

  it('the compact instruction asks for a summary', () => {
    expect(COMPACT_INSTRUCTION).toMatch(/summar/i);
  });
});
