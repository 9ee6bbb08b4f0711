/**
 * The README and docs/ against the code: the settings table holds exactly the settings
 * `--help` lists (and their simple defaults), the list of tools is the registry's (written by the
 * build, scripts/readme-tools.mjs), the counts the README states are the real ones, the first
 * screen holds the fastest path, and every relative link leads to a file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { helpText } from '../src/cli-help.js';
import { SLASH_COMMANDS } from '../src/app/slash-commands.js';
import { BUILTIN_TOOL_NAMES, SESSION_MODES } from '../src/tools/index.js';
import { withToolList } from '../scripts/readme-tools.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => ({ path: join(ROOT, 'docs', name), text: readFileSync(join(ROOT, 'docs', name), 'utf8') }));
const HELP = helpText('0.0.0');

/** The lines of one `## Heading` section of the README. */
function section(title: string): string[] {
  const lines = README.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`README has no "## ${title}"`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** `--help`'s settings: name (as listed, e.g. `AWS_REGION, AWS_PROFILE, …`) → default. */
function helpSettings(): Map<string, string> {
  const lines = HELP.split('\n');
  let start = lines.findIndex((line) => line.startsWith('Environment'));
  while (start < lines.length && !lines[start + 1]!.startsWith('  ')) start++;
  const settings = new Map<string, string>();
  for (let i = start + 1; i < lines.length && lines[i]!.startsWith('  '); i++) {
    const match = /^ {2}(\S.*?)\s{2,}\S/.exec(lines[i]!);
    if (!match || lines[i]!.trim().startsWith('default:')) continue;
    settings.set(match[1]!, /default: (.*)$/.exec(lines[i + 1] ?? '')?.[1]?.trim() ?? '');
  }
  return settings;
}

/** The README settings table: name (backticks dropped) → default (backticks dropped). */
function readmeSettings(): Map<string, string> {
  const rows = section('Settings').filter((line) => line.startsWith('| `'));
  return new Map(
    rows.map((row) => {
      const [name = '', value = ''] = row.split(' | ').map((cell) => cell.replace(/^\| /, '').replace(/`/g, '').trim());
      return [name, value];
    }),
  );
}

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

describe('README', () => {
  it('is at most 15 KB', () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(15 * 1024);
  });

  it('holds what the project is and the fastest path (a clone of the repository until the package is published) in its first 50 lines', () => {
    const first = README.split('\n').slice(0, 50).join('\n');
    expect(first).toMatch(/Agent Client Protocol/);
    expect(first).toMatch(/Node\.js 22 or 24 \(LTS\) recommended; Node 20 works/);
    expect(first).toMatch(
      /clone of https:\/\/github\.com\/openai-acp\/openai-acp[\s\S]*?```sh\ngit clone https:\/\/github\.com\/openai-acp\/openai-acp && cd openai-acp\nnpm install/,
    );
    expect(first).toMatch(/Ollama, zero configuration/);
    expect(first).toContain('OPENAI_BASE_URL=http://HOST:PORT/v1');
    expect(first).toMatch(/OPENAI_API_KEY=sk-/);
    expect(first).toContain('openai-acp doctor');
    expect(first).toContain('--approve-all --agent openai-acp exec');
  });

  it('gives no command that fetches openai-acp from npm while it is not published (someone else could publish the name)', () => {
    for (const block of README.matchAll(/```sh\n([\s\S]*?)```/g)) expect(block[1]).not.toMatch(/npx (--yes |-y )?openai-acp|npm install (-g )?openai-acp/);
  });

  it('has every setting --help lists in its settings table, and no other', () => {
    const help = helpSettings();
    expect(help.size).toBeGreaterThan(20);
    expect([...readmeSettings().keys()].sort()).toEqual([...help.keys()].sort());
  });

  it('gives the same default as --help where that is one word or number', () => {
    const readme = readmeSettings();
    for (const [name, value] of helpSettings()) {
      if (/^[\w.]+$/.test(value) && value !== 'unset' && value !== 'empty') expect(`${name}: ${readme.get(name)}`).toBe(`${name}: ${value}`);
    }
  });

  it('names every flag --help lists', () => {
    const flags = [...HELP.matchAll(/^ {2}(--[a-z-]+) /gm)].map((match) => match[1]!);
    expect(flags).toContain('--timeout-ms');
    const settings = section('Settings').join('\n');
    for (const flag of flags) expect(settings).toContain(`\`${flag}\``);
  });

  it('lists the tools of the registry, as the build writes them', () => {
    expect(README).toMatch(/<!-- tools -->[^\n]*<!-- \/tools -->/);
    expect(withToolList(README, [...BUILTIN_TOOL_NAMES])).toBe(README);
  });

  it('states the real counts of modes and built-in commands, and names each', () => {
    const count = (what: RegExp) => NUMBERS.indexOf(what.exec(README)?.[1]?.toLowerCase() ?? '');
    expect(count(/\b(\w+) modes:/i)).toBe(SESSION_MODES.length);
    expect(count(/\b(\w+) built-in commands:/i)).toBe(SLASH_COMMANDS.length);
    for (const mode of SESSION_MODES) expect(README).toContain(`\`${mode}\``);
    for (const command of SLASH_COMMANDS) expect(README).toContain(`\`/${command.name}\``);
  });
});

describe('README and docs/', () => {
  const files = [{ path: join(ROOT, 'README.md'), text: README }, ...DOCS];

  it('state no count of tools (the list grows with the registry), and no other count of modes or built-in commands', () => {
    for (const { path, text } of files) {
      expect(text, path).not.toMatch(new RegExp(`\\b(${NUMBERS.join('|')}) (built-in )?tools\\b`, 'i'));
      for (const [what, real] of [
        ['modes', SESSION_MODES.length],
        ['built-in commands', SLASH_COMMANDS.length],
      ] as const) {
        for (const match of text.matchAll(new RegExp(`\\b(${NUMBERS.join('|')}) ${what}\\b`, 'gi'))) {
          expect(match[1]!.toLowerCase(), `${path}: "${match[0]}"`).toBe(NUMBERS[real]);
        }
      }
    }
  });

  it('link only to files that exist', () => {
    for (const { path, text } of files) {
      for (const match of text.matchAll(/\]\(([^)#:\s]+)(#[^)]*)?\)/g)) {
        expect(existsSync(join(dirname(path), match[1]!)), `${path} → ${match[1]}`).toBe(true);
      }
    }
  });
});
