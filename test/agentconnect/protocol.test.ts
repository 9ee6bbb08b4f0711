import { describe, expect, it } from 'vitest';
import { permissionOutcome, fromAcpError } from '../../src/agentconnect/acp-bridge.js';
import { parseFrontDoorFlags } from '../../src/agentconnect/front-door-flags.js';
import {
  type AgentConnectError,
  checkProvider,
  cwdOf,
  isMachineMethod,
  loginOptionNames,
  messageText,
  optionalString,
  pickModel,
  sessionIdOf,
} from '../../src/agentconnect/protocol.js';
import { permissionOptions } from '../../src/tools/policy/permission.js';

const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as AgentConnectError).code;
  }
  return 'none';
};

describe('argument checks', () => {
  it('picks a model from local, local:<id>, local/<id> or a bare id; default (as their quick start sends it) is the default model', () => {
    expect(pickModel(undefined)).toBeUndefined();
    expect(pickModel('local')).toBeUndefined();
    expect(pickModel('default')).toBeUndefined();
    expect(pickModel(' default ')).toBeUndefined();
    expect(pickModel('local:default')).toBeUndefined();
    expect(pickModel('local:qwen2.5-coder:7b')).toBe('qwen2.5-coder:7b');
    expect(pickModel('local/ollama/qwen3')).toBe('ollama/qwen3');
    expect(pickModel(' llama3 ')).toBe('llama3');
    expect(code(() => pickModel('local:'))).toBe('AC_ERR_INVALID_ARGS');
    expect(code(() => pickModel('two words'))).toBe('AC_ERR_INVALID_ARGS');
    expect(code(() => pickModel(7))).toBe('AC_ERR_INVALID_ARGS');
  });

  it('names the login options an app sent, never their values', () => {
    expect(loginOptionNames({ provider: 'local', options: { baseUrl: 'http://x', apiKey: 'sk-secret-value', model: 'm', models: ['a'] } })).toEqual([
      'baseUrl',
      'apiKey',
      'model',
      'models',
    ]);
    expect(loginOptionNames({ provider: 'local' })).toEqual([]);
    expect(loginOptionNames({ options: 'sk-secret-value' })).toEqual([]);
    expect(loginOptionNames({ options: { 'sk-secret value': 1 } })).toEqual([]);
  });

  it('serves only the local provider', () => {
    expect(code(() => checkProvider(undefined))).toBe('none');
    expect(code(() => checkProvider('local'))).toBe('none');
    expect(code(() => checkProvider('claude'))).toBe('AC_ERR_UNSUPPORTED');
  });

  it('reads the message of send as the SDK sends it, or a bare string', () => {
    expect(messageText({ message: { role: 'user', content: 'hi' } })).toBe('hi');
    expect(messageText({ message: 'hi' })).toBe('hi');
    expect(code(() => messageText({ message: { content: '  ' } }))).toBe('AC_ERR_INVALID_ARGS');
    expect(code(() => messageText({}))).toBe('AC_ERR_INVALID_ARGS');
  });

  it('resolves cwd against the base, and refuses what is not a path', () => {
    expect(cwdOf({}, '/base')).toBe('/base');
    expect(cwdOf({ cwd: 'app' }, '/base')).toBe('/base/app');
    expect(cwdOf({ cwd: '/w/x/../y' }, '/base')).toBe('/w/y');
    expect(code(() => cwdOf({ cwd: 'a\0b' }, '/base'))).toBe('AC_ERR_INVALID_ARGS');
    expect(code(() => cwdOf({ cwd: ['x'] }, '/base'))).toBe('AC_ERR_INVALID_ARGS');
  });

  it('checks strings and session ids', () => {
    expect(optionalString({ system: '  be brief ' }, 'system')).toBe('be brief');
    expect(optionalString({ system: '' }, 'system')).toBeUndefined();
    expect(code(() => optionalString({ reasoningEffort: 'x'.repeat(101) }, 'reasoningEffort', 100))).toBe('AC_ERR_INVALID_ARGS');
    expect(code(() => sessionIdOf({}))).toBe('AC_ERR_INVALID_ARGS');
    expect(sessionIdOf({ sessionId: 'abc' })).toBe('abc');
  });

  it('names the methods that would hand an app the machine', () => {
    for (const method of [
      'acp.fs.write',
      'acp.process.kill',
      'acp.net.request',
      'acp.clipboard.write',
      'acp.system.open',
      'acp.backend.status',
      'acp.storage.set',
    ])
      expect(isMachineMethod(method), method).toBe(true);
    // Provider install and login are answered with the endpoint's state (host.ts), not refused.
    for (const method of ['acp.hello', 'acp.sessions.send', 'acp.models.list', 'acp.providers.status', 'acp.providers.login', 'acp.providers.ensureInstalled'])
      expect(isMachineMethod(method), method).toBe(false);
  });
});

describe('permission answers by the fixed mode', () => {
  const options = permissionOptions('edits');
  it('allows once in full-access and refuses once otherwise, by the offered option kinds', () => {
    expect(permissionOutcome('full-access', options)).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(permissionOutcome('accept-edits', options)).toEqual({ outcome: 'selected', optionId: 'reject_once' });
    expect(permissionOutcome('read-only', options)).toEqual({ outcome: 'selected', optionId: 'reject_once' });
    expect(permissionOutcome('read-only', [{ optionId: 'x', name: 'Allow', kind: 'allow_once' }])).toEqual({ outcome: 'cancelled' });
  });

  it('maps ACP errors to AgentConnect codes', () => {
    expect(fromAcpError({ code: -32002, message: 'Session not found: x' }).code).toBe('AC_ERR_INVALID_ARGS');
    expect(fromAcpError({ code: -32602, message: 'Invalid reasoning effort "max"' })).toMatchObject({
      code: 'AC_ERR_INVALID_ARGS',
      message: 'Invalid reasoning effort "max"',
    });
    expect(fromAcpError(new Error('boom')).code).toBe('AC_ERR_INTERNAL');
  });
});

describe('parseFrontDoorFlags', () => {
  it('defaults to loopback, port 9630, read-only, no origin, no token', () => {
    expect(parseFrontDoorFlags([])).toEqual({ flags: { port: 9630, host: '127.0.0.1', mode: 'read-only', allowOrigins: [], token: undefined } });
  });

  it('adds up origins and takes the rest', () => {
    const parsed = parseFrontDoorFlags([
      ['--port', '0'],
      ['--mode', 'full-access'],
      ['--allow-origin', 'http://localhost:5173/'],
      ['--allow-origin', 'null'],
      ['--allow-origin', 'http://localhost:80'],
      ['--token', 'long-enough'],
      ['--host', '0.0.0.0'],
    ]);
    expect(parsed).toEqual({
      flags: { port: 0, host: '0.0.0.0', mode: 'full-access', allowOrigins: ['http://localhost:5173', 'null', 'http://localhost'], token: 'long-enough' },
    });
  });

  it('names each bad flag, never echoing a token', () => {
    const parsed = parseFrontDoorFlags([
      ['--port', '70000'],
      ['--mode', 'ask'],
      ['--allow-origin', 'localhost:5173'],
      ['--token', 'short'],
    ]) as { problems: string[] };
    expect(parsed.problems).toHaveLength(4);
    expect(parsed.problems.join(' ')).not.toContain('short');
  });
});
