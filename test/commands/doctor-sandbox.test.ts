import { describe, expect, it } from 'vitest';
import { sandboxLines } from '../../src/commands/doctor-sandbox.js';
import { probeSandbox } from '../../src/tools/index.js';

const config = { sandbox: undefined, toolEnvKeep: [], toolEnvDrop: [] };

describe("doctor's tool-process lines", () => {
  it('says whether bubblewrap can run here, with the mode, and what to do when it cannot', () => {
    const [line] = sandboxLines(config, {});
    const found = probeSandbox();
    if (found.available) expect(line).toBe(`  sandbox           bubblewrap (${found.bwrap}) works here; auto under serve, off on stdio`);
    else expect(line).toContain(`⚠ cannot run: ${found.reason}`);
    expect(sandboxLines({ ...config, sandbox: 'on' }, {})[0]).toContain('OPENAI_ACP_SANDBOX=on');
  });

  it('names the variables held back from commands, never their values, and follows the operator keep list', () => {
    const env = { PATH: '/bin', OPENAI_API_KEY: 'sk-value-123456', GITHUB_TOKEN: 'ghp-value' };
    const [, line] = sandboxLines(config, env);
    expect(line).toBe('  tool environment  held back from commands and MCP servers: GITHUB_TOKEN, OPENAI_API_KEY (OPENAI_ACP_TOOL_ENV_KEEP keeps one)');
    expect(sandboxLines({ ...config, toolEnvKeep: ['GITHUB_TOKEN'] }, env)[1]).not.toContain('GITHUB_TOKEN');
    expect(sandboxLines(config, { PATH: '/bin' })[1]).toContain('nothing of this environment is held back');
  });
});
