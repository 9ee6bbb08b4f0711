import { describe, expect, it } from 'vitest';
import { admit, normalizeOrigin } from '../../src/agentconnect/gate.js';

const knock = (origin?: string, url = '/', authorization?: string) => ({ origin, url, authorization });

describe('admit', () => {
  it('lets in a client without Origin and refuses any browser origin not named', () => {
    const rules = { allowOrigins: [], token: undefined };
    expect(admit(knock(), rules)).toEqual({ ok: true });
    expect(admit(knock('https://evil.example'), rules)).toMatchObject({ ok: false, status: 403 });
    expect(admit(knock('null'), rules)).toMatchObject({ ok: false, status: 403 });
    expect(admit(knock(''), rules)).toMatchObject({ ok: false, status: 403 });
  });

  it('lets in a named origin, compared without case or trailing slash, and only that exact scheme, host and port', () => {
    const rules = { allowOrigins: [normalizeOrigin('http://LocalHost:5173/')], token: undefined };
    expect(admit(knock('http://localhost:5173'), rules)).toEqual({ ok: true });
    expect(admit(knock('http://localhost:5174'), rules)).toMatchObject({ status: 403 });
    expect(admit(knock('https://localhost:5173'), rules)).toMatchObject({ status: 403 });
    expect(admit(knock('http://localhost:5173.evil.example'), rules)).toMatchObject({ status: 403 });
  });

  it('matches a named origin with its default port to the origin a browser sends without it, and the other way round', () => {
    const rules = { allowOrigins: ['http://localhost:80', 'https://app.example:443', 'http://[::1]:80'].map(normalizeOrigin), token: undefined };
    expect(admit(knock('http://localhost'), rules)).toEqual({ ok: true });
    expect(admit(knock('https://app.example'), rules)).toEqual({ ok: true });
    expect(admit(knock('http://[::1]'), rules)).toEqual({ ok: true });
    // Another port, or the other scheme's default, is another origin.
    expect(admit(knock('http://localhost:8080'), rules)).toMatchObject({ status: 403 });
    expect(admit(knock('http://app.example'), rules)).toMatchObject({ status: 403 });
    expect(admit(knock('https://localhost'), rules)).toMatchObject({ status: 403 });
    const plain = { allowOrigins: [normalizeOrigin('http://localhost')], token: undefined };
    expect(admit(knock('http://localhost:80'), plain)).toEqual({ ok: true });
    expect(admit(knock('http://localhost:443'), plain)).toMatchObject({ status: 403 });
  });

  it('requires the token as ?token= or a Bearer header when one is set, and never puts it in the reason', () => {
    const rules = { allowOrigins: [], token: 'open-sesame-42' };
    expect(admit(knock(undefined, '/?token=open-sesame-42'), rules)).toEqual({ ok: true });
    expect(admit(knock(undefined, '/', 'Bearer open-sesame-42'), rules)).toEqual({ ok: true });
    const wrong = admit(knock(undefined, '/?token=open-sesame-4'), rules);
    expect(wrong).toMatchObject({ ok: false, status: 401 });
    expect(JSON.stringify(wrong)).not.toContain('open-sesame');
    expect(admit(knock(undefined, '/'), rules)).toMatchObject({ status: 401 });
    expect(admit(knock(undefined, '/', 'Basic b3Blbg=='), rules)).toMatchObject({ status: 401 });
  });

  it('checks the origin before the token: a foreign page with the right token is still refused', () => {
    expect(admit(knock('https://evil.example', '/?token=open-sesame-42'), { allowOrigins: [], token: 'open-sesame-42' })).toMatchObject({ status: 403 });
  });
});
