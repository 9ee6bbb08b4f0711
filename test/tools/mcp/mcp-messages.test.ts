import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { callFailureText, plainMessage, redactUrl, seconds, startFailureNotice, startFailureReason } from '../../../src/tools/mcp/mcp-messages.js';

const spawnError = (code: string, path: string) => Object.assign(new Error(`spawn ${path} ${code}`), { code, path, syscall: `spawn ${path}` });

describe('MCP failure messages', () => {
  it('names the server and explains spawn errors', () => {
    expect(startFailureNotice('files', startFailureReason({ error: spawnError('ENOENT', '/nope') }))).toBe(
      'MCP server "files" could not start: spawn /nope ENOENT (command not found)',
    );
    expect(startFailureReason({ error: spawnError('EACCES', '/etc/passwd') })).toBe(
      'spawn /etc/passwd EACCES (permission denied: the command is not executable)',
    );
  });

  it('says a timeout in seconds and adds the last stderr line', () => {
    expect(startFailureReason({ timedOutMs: 30_000, stderrTail: ['a', 'Error: no token'] })).toBe(
      'it did not finish starting within 30 s (timed out) (its last words on stderr: Error: no token)',
    );
    expect(seconds(1_500)).toBe('1.5 s');
  });

  it('explains a closed connection and a fetch failure with its cause', () => {
    expect(startFailureReason({ error: new McpError(ErrorCode.ConnectionClosed, 'Connection closed') })).toMatch(
      /^the server closed the connection before it was ready/,
    );
    const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    expect(startFailureReason({ error: fetchFailed })).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:9 (connection refused: is the server running?)');
  });

  it('names a missing working directory', () => {
    expect(startFailureReason({ error: spawnError('ENOENT', 'node'), missingCwd: '/gone' })).toBe('the working directory /gone does not exist');
  });

  it('removes credentials, query and fragment from URLs', () => {
    expect(redactUrl('https://user:pw@example.com:8443/mcp/x?token=abc#frag')).toBe('https://example.com:8443/mcp/x');
    expect(redactUrl('nonsense')).toBe('(an invalid URL)');
  });

  it('strips the SDK prefix from messages', () => {
    expect(plainMessage(new McpError(ErrorCode.InvalidParams, 'Tool x not found'))).toBe('Tool x not found');
    expect(plainMessage('text')).toBe('text');
    expect(plainMessage(new Error(''))).toBe('unknown error');
  });

  it('tells the model which call failed and why', () => {
    const context = { server: 'web', tool: 'fetch', timeoutMs: 60_000 };
    expect(callFailureText(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), context)).toBe(
      'MCP tool "fetch" of server "web" did not answer within 60 s (timed out).',
    );
    expect(callFailureText(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), context)).toBe(
      'MCP tool "fetch" of server "web" failed: the server closed the connection during the call.',
    );
    expect(callFailureText(new McpError(ErrorCode.InvalidRequest, 'Tool fetch has an output schema but did not return structured content'), context)).toBe(
      'MCP tool "fetch" of server "web" failed: Tool fetch has an output schema but did not return structured content',
    );
  });
});
