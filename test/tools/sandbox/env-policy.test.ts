import { describe, expect, it } from 'vitest';
import { AGENT_SECRET_NAMES, DEFAULT_DROP_PATTERNS, dropReason, toolEnvironment } from '../../../src/tools/sandbox/env-policy.js';

const ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  OPENAI_API_KEY: 'sk-agent-key-123456',
  OPENAI_API_KEY_FILE: '/run/secrets/key',
  OPENAI_ACP_SERVE_TOKEN: 'serve-token-abcdef',
  OPENAI_HEADERS: '{"x-gw":"g"}',
  OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
  GITHUB_TOKEN: 'ghp_x',
  npm_config_password: 'p',
  My_Secret_Thing: 's',
  GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
  AWS_REGION: 'eu-west-1',
  AZURE_CLIENT_ID: 'c',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
  COPY_OF_IT: 'prefix sk-agent-key-123456 suffix',
  EMPTY: undefined,
};

describe('the tool environment policy', () => {
  it('by default keeps the ordinary variables and drops the secrets, their look-alikes and the cloud identities', () => {
    const { env, dropped } = toolEnvironment(ENV, { secretValues: ['sk-agent-key-123456', 'serve-token-abcdef'] });
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'OPENAI_BASE_URL', 'PATH', 'SSH_AUTH_SOCK']);
    expect(dropped).toContain('OPENAI_API_KEY');
    expect(dropped).toContain('COPY_OF_IT');
    expect(dropped).not.toContain('EMPTY');
    expect(JSON.stringify(env)).not.toContain('sk-agent-key');
  });

  it('matches the default patterns without regard to case, on the whole name', () => {
    expect(dropReason('my_api_key', 'v')).toBe('*KEY*');
    expect(dropReason('Db_Password', 'v')).toBe('*PASSWORD*');
    expect(dropReason('aws_profile', 'v')).toBe('AWS_*');
    expect(dropReason('NOT_AWS', 'v')).toBeUndefined();
    expect(DEFAULT_DROP_PATTERNS).toEqual(['*KEY*', '*SECRET*', '*TOKEN*', '*PASSWORD*', '*CREDENTIAL*', 'AWS_*', 'AZURE_*']);
  });

  it('the operator keeps a look-alike by name or pattern, and drops more', () => {
    const policy = { keep: ['GITHUB_TOKEN', 'AWS_*'], drop: ['LANG', 'SSH_*'] };
    const { env } = toolEnvironment(ENV, policy);
    expect(env['GITHUB_TOKEN']).toBe('ghp_x');
    expect(env['AWS_REGION']).toBe('eu-west-1');
    expect(env['LANG']).toBeUndefined();
    expect(env['SSH_AUTH_SOCK']).toBeUndefined();
    expect(env['AZURE_CLIENT_ID']).toBeUndefined();
  });

  it("keeps the agent's own secret only when the operator names it exactly, never through a pattern", () => {
    expect(toolEnvironment(ENV, { keep: ['*'] }).env['OPENAI_API_KEY']).toBeUndefined();
    expect(toolEnvironment(ENV, { keep: ['OPENAI_*'] }).env['OPENAI_ACP_SERVE_TOKEN']).toBeUndefined();
    expect(toolEnvironment(ENV, { keep: ['openai_api_key'] }).env['OPENAI_API_KEY']).toBe('sk-agent-key-123456');
    expect(toolEnvironment(ENV, { keep: ['*'], secretValues: ['sk-agent-key-123456'] }).env['COPY_OF_IT']).toBeUndefined();
  });

  it('a drop beats a keep', () => {
    expect(dropReason('GITHUB_TOKEN', 'v', { keep: ['GITHUB_TOKEN'], drop: ['GITHUB_*'] })).toBe('OPENAI_ACP_TOOL_ENV_DROP');
  });

  it('short secret values are not looked for inside other variables', () => {
    expect(dropReason('EDITOR', 'vim', { secretValues: ['vi'] })).toBeUndefined();
  });

  it('names every secret setting of the agent and its _FILE form', () => {
    for (const name of ['OPENAI_API_KEY', 'OPENAI_HEADERS', 'OPENAI_QUERY', 'OPENAI_ACP_SERVE_TOKEN', 'OPENAI_ACP_AGENTCONNECT_TOKEN']) {
      expect(AGENT_SECRET_NAMES).toContain(name);
      expect(AGENT_SECRET_NAMES).toContain(`${name}_FILE`);
    }
  });

  it('a pattern with regular-expression characters is matched literally', () => {
    expect(dropReason('A.B', 'v', { drop: ['A.B'] })).toBe('OPENAI_ACP_TOOL_ENV_DROP');
    expect(dropReason('AXB', 'v', { drop: ['A.B'] })).toBeUndefined();
  });
});
