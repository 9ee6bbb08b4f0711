import { describe, expect, it } from 'vitest';
import { MCP_DEFAULTS, mcpSettings } from '../../../src/tools/mcp/mcp-settings.js';

describe('mcpSettings', () => {
  it('defaults to 10 s startup and 60 s per call', () => {
    expect(mcpSettings({})).toEqual({ startupMs: 10_000, toolTimeoutMs: 60_000 });
    expect(mcpSettings({ OPENAI_ACP_MCP_STARTUP_MS: '  ', OPENAI_ACP_MCP_TOOL_TIMEOUT_MS: '' })).toEqual(MCP_DEFAULTS);
  });

  it('reads whole milliseconds', () => {
    expect(mcpSettings({ OPENAI_ACP_MCP_STARTUP_MS: ' 2500 ', OPENAI_ACP_MCP_TOOL_TIMEOUT_MS: '120000' })).toEqual({ startupMs: 2_500, toolTimeoutMs: 120_000 });
  });

  it.each(['0', '-5', '1.5', '10s', 'abc', '1e4', '99999999999'])('rejects %j naming the variable and the accepted form', (value) => {
    expect(() => mcpSettings({ OPENAI_ACP_MCP_STARTUP_MS: value })).toThrow(/^OPENAI_ACP_MCP_STARTUP_MS must be a whole number of milliseconds from 1 to 2147483647 \(e\.g\. 10000\), got "/);
    expect(() => mcpSettings({ OPENAI_ACP_MCP_TOOL_TIMEOUT_MS: value })).toThrow(/^OPENAI_ACP_MCP_TOOL_TIMEOUT_MS must be/);
  });
});
