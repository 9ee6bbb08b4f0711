import { describe, expect, it } from 'vitest';
import { commandName, isCompoundCommand, runCommandTool } from '../../../src/tools/builtin/run-command.js';
import { builtinTool } from '../../../src/tools/builtin/registry.js';
import { builtinSubject } from '../../../src/tools/builtin/builtin-tools.js';
import { mcpSubject } from '../../../src/tools/mcp/mcp-tool.js';
import {
  decidePermission,
  DECLINED,
  PERMISSION_OPTION_IDS,
  permissionOptions,
  readPermissionOutcome,
  refusal,
  type PermissionDecision,
} from '../../../src/tools/policy/permission.js';
import { DEFAULT_MODE, isSessionMode, SESSION_MODES, type SessionMode } from '../../../src/tools/policy/mode-table.js';
import type { PermissionSubject } from '../../../src/tools/tool.js';

const none = {};

describe('decidePermission', () => {
  it('allows reads in every mode, whatever is remembered', () => {
    for (const mode of SESSION_MODES) {
      expect(decidePermission(mode, { read_file: 'reject' }, { permission: 'reads', key: 'read_file' })).toBe('allow');
    }
  });

  // Every mode × permission class × remembered × insideCwd × readOnlyHint, against the rules written out.
  const permissionValues = ['edits', 'runs'] as const;
  const rememberedValues = [undefined, 'allow', 'reject'] as const;
  const flags = [undefined, false, true] as const;
  const expected = (mode: SessionMode, s: PermissionSubject, remembered: 'allow' | 'reject' | undefined): PermissionDecision => {
    // MCP tools marked read-only are offered in read-only and plan mode and go on as in ask mode.
    if ((mode === 'read-only' || mode === 'plan') && s.readOnlyHint !== true) return 'reject';
    if (mode === 'full-access') return 'allow';
    if (remembered) return remembered;
    if (mode === 'accept-edits' && s.permission === 'edits' && s.insideCwd === true) return 'allow';
    if (mode === 'accept-edits' && s.readOnlyHint === true) return 'allow';
    return 'ask';
  };
  for (const mode of SESSION_MODES) {
    for (const permission of permissionValues) {
      for (const remembered of rememberedValues) {
        for (const insideCwd of flags) {
          for (const readOnlyHint of flags) {
            const subject: PermissionSubject = {
              permission,
              key: 'k',
              ...(insideCwd === undefined ? {} : { insideCwd }),
              ...(readOnlyHint === undefined ? {} : { readOnlyHint }),
            };
            const want = expected(mode, subject, remembered);
            it(`${mode} ${permission} remembered=${remembered} insideCwd=${insideCwd} readOnlyHint=${readOnlyHint} → ${want}`, () => {
              expect(decidePermission(mode, remembered ? { k: remembered } : none, subject)).toBe(want);
            });
          }
        }
      }
    }
  }

  it("fetches run in full-access and accept-edits; elsewhere (read-only included) the host's remembered choice decides, else they ask", () => {
    const subject = { permission: 'fetches' as const, key: 'fetch:example.com' };
    expect(decidePermission('full-access', {}, subject)).toBe('allow');
    expect(decidePermission('accept-edits', {}, subject)).toBe('allow');
    expect(decidePermission('ask', {}, subject)).toBe('ask');
    expect(decidePermission('read-only', {}, subject)).toBe('ask');
    expect(decidePermission('read-only', { 'fetch:example.com': 'allow' }, subject)).toBe('allow');
    expect(decidePermission('ask', { 'fetch:example.com': 'reject' }, subject)).toBe('reject');
    expect(decidePermission('ask', { 'fetch:other.org': 'allow' }, subject)).toBe('ask');
  });

  it('uses only the choice remembered for the subject key', () => {
    expect(decidePermission('ask', { 'run_command:git': 'allow' }, { permission: 'runs', key: 'run_command:rm' })).toBe('ask');
    expect(decidePermission('ask', { 'run_command:git': 'allow' }, { permission: 'runs', key: 'run_command:git' })).toBe('allow');
  });

  it('does not read inherited properties as remembered choices', () => {
    expect(decidePermission('ask', {}, { permission: 'runs', key: 'toString' })).toBe('ask');
    expect(decidePermission('ask', {}, { permission: 'runs', key: '__proto__' })).toBe('ask');
  });
});

describe('commandName and permissionKey', () => {
  it.each([
    ['git status', 'git'],
    ['/usr/bin/git status', '/usr/bin/git'],
    ['FOO=1 /usr/bin/git status', '/usr/bin/git'],
    ['./git status', './git'],
    ['FOO=1 BAR=two  npm   test', 'npm'],
    ['  ls -la  ', 'ls'],
    ['./scripts/build.sh --fast', './scripts/build.sh'],
    ['', ''],
    ['   ', ''],
    ['FOO=1', ''],
  ])('%j → %j', (line, name) => {
    expect(commandName(line)).toBe(name);
  });

  const roots = { cwd: '/w', extra: [] };
  const key = (name: Parameters<typeof builtinTool>[0], args: Record<string, unknown>) => builtinSubject(builtinTool(name), args, roots).key;

  it('keys run_command by command as written, MCP tools by server and tool, the rest by tool name', () => {
    expect(key('run_command', { command: 'FOO=1 git status' })).toBe('run_command:git');
    // "Always allow git" does not cover another program named git.
    expect(key('run_command', { command: './git status' })).toBe('run_command:./git');
    expect(key('run_command', {})).toBe('run_command:');
    expect(key('run_command', { command: 42 })).toBe('run_command:');
    expect(key('write_file', { path: 'a.txt' })).toBe('write_file');
    expect(mcpSubject({ server: 'fs', tool: 'write' }).key).toBe('mcp:fs/write');
    expect(key('fetch_url', { url: ' https://Docs.Example.com:8443/a?b ' })).toBe('fetch:docs.example.com:8443');
    expect(key('fetch_url', { url: 'not a url' })).toBe('fetch:');
  });

  it.each([
    'git status && rm -rf ~',
    'git log; curl x | sh',
    'git log | sh',
    'git log > ~/.bashrc',
    'git $(rm -rf ~)',
    'git `id`',
    'git status &',
    'git status\nrm -rf ~',
  ])('a compound line %j is keyed by the whole line, so "always allow git" does not cover it', (line) => {
    const subject = builtinSubject(runCommandTool, { command: ` ${line} ` }, roots);
    expect(subject.key).toBe(`run_line:${line.trim()}`);
    expect(decidePermission('ask', { 'run_command:git': 'allow' }, subject)).toBe('ask');
    expect(subject.scope).toBe('this exact command line');
  });

  it('words what "always" covers', () => {
    const scope = (name: Parameters<typeof builtinTool>[0], args: Record<string, unknown>) => builtinSubject(builtinTool(name), args, roots).scope;
    expect(scope('run_command', { command: 'git status' })).toBe('"git" commands');
    expect(scope('run_command', { command: '' })).toBe('commands');
    expect(mcpSubject({ server: 'fs', tool: 'write' }).scope).toBe('the MCP tool fs/write');
    expect(scope('fetch_url', { url: 'https://example.com/x' })).toBe('fetches from example.com');
    expect(scope('write_file', { path: 'a' })).toBe('file writes');
    expect(scope('edit_file', { path: 'a' })).toBe('file edits');
  });

  it("gives the class of the tool, whether an edit stays inside the cwd, and an MCP tool's read-only hint", () => {
    expect(builtinSubject(builtinTool('read_file'), { path: 'a' }, roots)).toMatchObject({ permission: 'reads', key: 'read_file' });
    expect(builtinSubject(builtinTool('edit_file'), { path: 'src/a.ts' }, roots)).toMatchObject({ permission: 'edits', insideCwd: true });
    expect(builtinSubject(builtinTool('write_file'), { path: '/elsewhere/a.ts' }, roots)).toMatchObject({ permission: 'edits', insideCwd: false });
    expect(builtinSubject(builtinTool('fetch_url'), { url: 'https://a.b' }, roots).permission).toBe('fetches');
    expect(mcpSubject({ server: 's', tool: 't', readOnly: true })).toMatchObject({ permission: 'runs', readOnlyHint: true });
  });

  it("words a mode's refusal, and a declined call otherwise", () => {
    expect(refusal('read-only')).toMatch(/read-only mode/);
    expect(refusal('plan')).toMatch(/plan mode.*update_plan/);
    expect(refusal('ask')).toBe(DECLINED);
  });
});

describe('isCompoundCommand', () => {
  it('is false for one plain command with arguments', () => {
    for (const line of ['git status', 'FOO=1 npm test -- --watch=false', 'ls -la src', "grep -rn 'a b' ."]) expect(isCompoundCommand(line)).toBe(false);
  });
});

describe('readPermissionOutcome', () => {
  const selected = (optionId: string) => ({ outcome: 'selected' as const, optionId });
  it('reads our four ids', () => {
    expect(readPermissionOutcome(selected(PERMISSION_OPTION_IDS.allowOnce))).toEqual({ allowed: true });
    expect(readPermissionOutcome(selected(PERMISSION_OPTION_IDS.allowAlways))).toEqual({ allowed: true, remember: 'allow' });
    expect(readPermissionOutcome(selected(PERMISSION_OPTION_IDS.rejectOnce))).toEqual({ allowed: false });
    expect(readPermissionOutcome(selected(PERMISSION_OPTION_IDS.rejectAlways))).toEqual({ allowed: false, remember: 'reject' });
  });
  it('refuses on cancelled or no outcome', () => {
    expect(readPermissionOutcome({ outcome: 'cancelled' })).toEqual({ allowed: false });
    expect(readPermissionOutcome(undefined)).toEqual({ allowed: false });
  });
  it("allows once on Open Design's approve_for_session, without remembering", () => {
    expect(readPermissionOutcome(selected('approve_for_session'))).toEqual({ allowed: true });
    expect(readPermissionOutcome(selected('Allow'))).toEqual({ allowed: true });
  });
  it('refuses unknown ids', () => {
    for (const id of ['deny', 'reject', 'no', '', 'maybe_allow']) expect(readPermissionOutcome(selected(id))).toEqual({ allowed: false });
  });
});

describe('permissionOptions', () => {
  it('offers the four spec kinds once each, an allow first, with unique ids our reader understands', () => {
    const options = permissionOptions('"git" commands');
    expect(options.map((o) => o.kind).sort()).toEqual(['allow_always', 'allow_once', 'reject_always', 'reject_once']);
    expect(options[0]?.kind.startsWith('allow')).toBe(true);
    expect(new Set(options.map((o) => o.optionId)).size).toBe(4);
    for (const option of options) {
      const read = readPermissionOutcome({ outcome: 'selected', optionId: option.optionId });
      expect(read.allowed).toBe(option.kind.startsWith('allow'));
      expect(read.remember).toBe(option.kind === 'allow_always' ? 'allow' : option.kind === 'reject_always' ? 'reject' : undefined);
    }
    expect(options.find((o) => o.kind === 'allow_always')?.name).toContain('"git" commands');
  });
});

describe('session modes', () => {
  it('recognises the modes and defaults to ask', () => {
    expect(DEFAULT_MODE).toBe('ask');
    for (const mode of SESSION_MODES) expect(isSessionMode(mode)).toBe(true);
    for (const value of ['Ask', 'readonly', '', undefined, 1, null]) expect(isSessionMode(value)).toBe(false);
  });
});
