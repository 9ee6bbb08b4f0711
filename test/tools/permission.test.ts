import { describe, expect, it } from 'vitest';
import { decidePermission, type PermissionSubject } from '../../src/tools/permission.js';

const mcp = (readOnlyHint: boolean): PermissionSubject => ({ mutates: 'execute', key: 'mcp:fx/echo', readOnlyHint });

describe('decidePermission in read-only mode', () => {
  it('refuses edits, commands and MCP tools not marked read-only', () => {
    expect(decidePermission('read-only', {}, { mutates: 'edit', key: 'edit_file', insideCwd: true })).toBe('reject');
    expect(decidePermission('read-only', { 'run_command:ls': 'allow' }, { mutates: 'execute', key: 'run_command:ls' })).toBe('reject');
    expect(decidePermission('read-only', {}, mcp(false))).toBe('reject');
  });
  it('lets MCP tools marked read-only (the ones it offers) go on as in ask mode', () => {
    expect(decidePermission('read-only', {}, mcp(true))).toBe('ask');
    expect(decidePermission('read-only', { 'mcp:fx/echo': 'allow' }, mcp(true))).toBe('allow');
    expect(decidePermission('read-only', { 'mcp:fx/echo': 'reject' }, mcp(true))).toBe('reject');
    expect(decidePermission('ask', {}, mcp(true))).toBe('ask');
    expect(decidePermission('accept-edits', {}, mcp(true))).toBe('allow');
  });
});
