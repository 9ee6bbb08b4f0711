import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger, type LoggerOptions } from '../../src/shared/log.js';

const KEY = 'sk-DISTINCTIVE-log-key-4c3b2a';

function capture(options: Omit<LoggerOptions, 'write'>) {
  const lines: string[] = [];
  const logger = createLogger({ ...options, write: (line) => lines.push(line) });
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes one prefixed line per record, fields as JSON', () => {
    const { logger, lines } = capture({ level: 'info' });
    logger.info('started', { model: 'gpt-4o', retries: 2 });
    logger.warn('no fields');
    expect(lines).toEqual(['openai-acp info: started {"model":"gpt-4o","retries":2}\n', 'openai-acp warn: no fields\n']);
  });

  it.each([
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['info', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
  ] as const)('at %s writes %j', (level, written) => {
    const { logger, lines } = capture({ level });
    logger.error('m');
    logger.warn('m');
    logger.info('m');
    logger.debug('m');
    expect(lines.map((line) => line.split(':')[0]!.replace('openai-acp ', ''))).toEqual(written);
    expect(logger.level).toBe(level);
  });

  it('keeps a multi-line message on one line', () => {
    const { logger, lines } = capture({ level: 'info' });
    logger.error('invalid configuration:\nOPENAI_TEMPERATURE: bad\r\n\u001b[31mred');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.trimEnd()).not.toMatch(/[\n\r\u001b]/);
    expect(lines[0]).toContain('invalid configuration:\\nOPENAI_TEMPERATURE: bad');
  });

  it('redacts the API key in messages and fields', () => {
    const secrets = secretsOf(loadConfig({ OPENAI_API_KEY: KEY }));
    const { logger, lines } = capture({ level: 'debug', secrets });
    logger.info(`sending Authorization: Bearer ${KEY}`, { headers: { authorization: `Bearer ${KEY}` }, nested: [[KEY]] });
    logger.debug(KEY + KEY);
    const all = lines.join('');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(KEY.slice(0, 8));
    expect(lines[0]).toContain('Bearer ***');
    expect(lines[1]).toBe('openai-acp debug: ***\n');
  });

  it('redacts secret header values', () => {
    const secrets = secretsOf(loadConfig({ OPENAI_HEADERS: '{"api-key":"azure-key-5566","X-Title":"visible"}' }));
    const { logger, lines } = capture({ level: 'info', secrets });
    logger.info('request', { headers: { 'api-key': 'azure-key-5566', 'x-title': 'visible' } });
    expect(lines[0]).not.toContain('azure-key-5566');
    expect(lines[0]).toContain('visible');
  });

  it('redacts secrets as escaped inside JSON and inside escaped messages', () => {
    const secret = 'pa"ss\\wo\nrd';
    const { logger, lines } = capture({ level: 'info', secrets: [secret] });
    logger.info(`msg ${secret}`, { value: `x${secret}y` });
    expect(lines[0]).toBe('openai-acp info: msg *** {"value":"x***y"}\n');
  });

  it('never leaves part of overlapping secrets', () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['abcd', 'cdef'] });
    logger.info('xxabcdefyy');
    expect(lines[0]).toBe('openai-acp info: xx***yy\n');
  });

  it('re-redacts when a replacement completes another secret', () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['abcd', '***e'] });
    logger.info('abcde');
    expect(lines[0]).not.toContain('***e');
  });

  it('ignores secrets shorter than 4 characters', () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['a', 'abc', ''] });
    logger.info('abc a');
    expect(lines[0]).toBe('openai-acp info: abc a\n');
  });

  it('survives cycles, bigints, errors and a failing writer', () => {
    const { logger, lines } = capture({ level: 'info' });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const shared = { z: 1 };
    logger.info('odd', { cyclic, n: 10n, error: new Error('boom'), s1: shared, s2: shared });
    expect(lines[0]).toContain('"self":"[Circular]"');
    expect(lines[0]).toContain('"n":"10"');
    expect(lines[0]).toContain('Error: boom');
    expect(lines[0]).toContain('"s2":{"z":1}');
    const throwing = createLogger({
      level: 'info',
      write: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => throwing.error('x')).not.toThrow();
  });
});

describe('createLogger with format json', () => {
  const at = new Date('2026-11-23T12:00:00.000Z');

  it('writes one JSON object per line: time, level, message, then the fields', () => {
    const { logger, lines } = capture({ level: 'debug', format: 'json', now: () => at });
    logger.info('started', { model: 'qwen3:8b', retries: 2 });
    logger.debug('multi\nline');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({ time: '2026-11-23T12:00:00.000Z', level: 'info', message: 'started', model: 'qwen3:8b', retries: 2 });
    expect(JSON.parse(lines[1]!).message).toBe('multi\nline');
  });

  it('keeps its own keys when a field has the same name', () => {
    const { logger, lines } = capture({ level: 'info', format: 'json', now: () => at });
    logger.warn('m', { level: 'x', time: 1 });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', time: at.toISOString(), 'field.level': 'x', 'field.time': 1 });
  });

  it('redacts secrets in the message, fields, nested values, keys and errors, and stays valid JSON', () => {
    const quoted = 'sk-"quoted\\secret"-9f8e';
    const { logger, lines } = capture({ level: 'info', format: 'json', secrets: [KEY, quoted] });
    const error = new Error(`bad key ${KEY}`);
    logger.error(`key ${KEY}`, { nested: { deep: [KEY, `x${quoted}y`] }, [KEY]: 1, error });
    const text = lines[0]!;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(quoted);
    expect(text).not.toContain(JSON.stringify(quoted).slice(1, -1));
    const record = JSON.parse(text);
    expect(record.message).toBe('key ***');
    expect(record.nested.deep).toEqual(['***', 'x***y']);
    expect(record['***']).toBe(1);
    expect(record.error).toContain('bad key ***');
  });

  it('survives cycles and bigints', () => {
    const { logger, lines } = capture({ level: 'info', format: 'json' });
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic['self'] = cyclic;
    logger.info('m', { cyclic });
    expect(JSON.parse(lines[0]!).cyclic).toEqual({ n: '1', self: '[Circular]' });
  });

  it('is chosen by OPENAI_ACP_LOG_FORMAT, text by default, anything else a configuration error', () => {
    expect(loadConfig({}).logFormat).toBe('text');
    expect(loadConfig({ OPENAI_ACP_LOG_FORMAT: 'JSON' }).logFormat).toBe('json');
    expect(() => loadConfig({ OPENAI_ACP_LOG_FORMAT: 'yaml' })).toThrow(/OPENAI_ACP_LOG_FORMAT: "yaml" is not a log format; expected text or json/);
  });
});
