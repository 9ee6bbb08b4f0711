/**
 * End to end: the built CLI against a loopback server posing as Bedrock (`OPENAI_PROVIDER=bedrock`,
 * no key), with static AWS credentials in a scratch environment: the chat request arrives signed
 * and the signature verifies. Also a key read from `OPENAI_API_KEY_FILE`, and the build keeping the
 * AWS and Azure SDKs out of the start-up bundle (in their own chunks).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { CLI, spawnAgent, type AgentProcess } from '../helpers/spawn-agent.js';
import { runCli } from '../helpers/doctor-run-cli.js';
import { startSigV4Server, TEST_AWS, type SigV4Server } from '../helpers/sigv4-server.js';

let bedrock: SigV4Server;
let openai: FakeOpenAI;
let home: string;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  bedrock = await startSigV4Server();
  openai = await startFakeOpenAI();
  home = mkdtempSync(join(tmpdir(), 'openai-acp-cloud-'));
});
afterAll(async () => {
  await bedrock.close();
  await openai.close();
  rmSync(home, { recursive: true, force: true });
});
afterEach(() => {
  agent?.kill();
  agent = undefined;
});

/** Every AWS source but the environment keys switched off: no profile, no files, no metadata service. */
const scratchAws = () => ({
  HOME: home,
  AWS_CONFIG_FILE: join(home, 'no-config'),
  AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_PROFILE: '',
  AWS_DEFAULT_PROFILE: '',
  AWS_WEB_IDENTITY_TOKEN_FILE: '',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
  AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
  AWS_SESSION_TOKEN: TEST_AWS.sessionToken,
  AWS_REGION: 'us-east-1',
});

describe('the built CLI', () => {
  it('signs Bedrock requests with SigV4 from the AWS credential chain when no key is set', async () => {
    agent = spawnAgent({
      ...scratchAws(),
      OPENAI_PROVIDER: 'bedrock',
      OPENAI_BASE_URL: `${bedrock.origin}/openai/v1`,
      OPENAI_MODEL: 'openai.gpt-oss-120b',
      OPENAI_MAX_RETRIES: '0',
    });
    const sessionId = await agent.start(home);
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(answer.result?.stopReason).toBe('end_turn');
    expect(agent.text(sessionId)).toBe('signed ok');
    const post = bedrock.records.find((r) => r.method === 'POST');
    expect(post).toMatchObject({
      url: '/openai/v1/chat/completions',
      verified: true,
      scope: { accessKeyId: TEST_AWS.accessKeyId, region: 'us-east-1', service: 'bedrock' },
    });
    expect(JSON.parse(post!.body)).toMatchObject({ model: 'openai.gpt-oss-120b', stream: true });
    expect(agent.stderr()).not.toContain(TEST_AWS.secretAccessKey);
  }, 30_000);

  it('answers a prompt with the fix when the AWS chain finds no credentials, sending nothing', async () => {
    const before = bedrock.records.length;
    agent = spawnAgent({
      ...scratchAws(),
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      OPENAI_PROVIDER: 'bedrock',
      OPENAI_BASE_URL: `${bedrock.origin}/openai/v1`,
      OPENAI_MODEL: 'm',
    });
    const sessionId = await agent.start(home);
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(answer.error?.code).toBe(-32603);
    expect(answer.error?.message).toContain('no AWS credentials');
    expect(answer.error?.message).toContain('set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE');
    expect(agent.text(sessionId)).toBe('');
    expect(bedrock.records.length).toBe(before);
  }, 30_000);

  it('sends the key read from OPENAI_API_KEY_FILE', async () => {
    const keyFile = join(home, 'api-key');
    writeFileSync(keyFile, 'sk-from-a-secret-file\n');
    agent = spawnAgent({ HOME: home, OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY_FILE: keyFile, OPENAI_MODEL: 'test-model' });
    const sessionId = await agent.start(home);
    await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(openai.requests.at(-1)?.headers['authorization']).toBe('Bearer sk-from-a-secret-file');
    expect(agent.stderr()).not.toContain('sk-from-a-secret-file');
  }, 30_000);
});

describe('doctor', () => {
  const bedrockEnv = () => ({
    ...scratchAws(),
    OPENAI_PROVIDER: 'bedrock',
    OPENAI_BASE_URL: `${bedrock.origin}/openai/v1`,
    OPENAI_MODEL: 'openai.gpt-oss-120b',
  });

  it('checks the SigV4 path: source, region, credentials, then a signed one-token request', async () => {
    const run = await runCli(['doctor'], { home, env: bedrockEnv() });
    expect(run.stdout).toContain(
      '✓ AWS credential source: no API key is set, so requests are signed with SigV4; the credential chain starts ' +
        'at: environment (AWS_ACCESS_KEY_ID, AWS_SESSION_TOKEN)',
    );
    expect(run.stdout).toContain('✓ AWS region: us-east-1 (from AWS_REGION), service bedrock');
    expect(run.stdout).toContain('✓ AWS credentials obtained: access key AKID…MPLE, temporary');
    expect(run.stdout).toContain('✓ authentication accepted: the AWS SigV4 signature was accepted');
    expect(run.stdout).toContain('✓ one-token streamed completion');
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(TEST_AWS.secretAccessKey);
  }, 30_000);

  it('says how to get credentials when the chain finds none', async () => {
    const env = { ...bedrockEnv(), AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '' };
    const run = await runCli(['doctor'], { home, env });
    expect(run.stdout).toMatch(/✗ AWS credentials obtained: .*\n\s+fix: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE/);
    expect(run.code).toBe(1);
  }, 30_000);
});

describe('the build', () => {
  const dist = dirname(CLI);
  it('keeps the AWS and Azure SDKs out of dist/bundle.js, in chunks of their own', () => {
    const main = readFileSync(join(dist, 'bundle.js'), 'utf8');
    // String literals of the SDKs that minification keeps.
    const aws = ['AWS4-HMAC-SHA256', 'aws4_request'];
    const azure = ['login.microsoftonline.com', 'ManagedIdentityCredential'];
    for (const text of [...aws, ...azure]) expect(main, text).not.toContain(text);
    const awsChunk = join(dist, 'chunks', 'aws-signing.lazy.cjs');
    const azureChunk = join(dist, 'chunks', 'azure-token.lazy.cjs');
    expect(existsSync(awsChunk) && existsSync(azureChunk)).toBe(true);
    for (const text of aws) expect(readFileSync(awsChunk, 'utf8')).toContain(text);
    for (const text of azure) expect(readFileSync(azureChunk, 'utf8')).toContain(text);
    expect(main).toContain('aws-signing.lazy.cjs');
    expect(main).toContain('azure-token.lazy.cjs');
    expect(statSync(awsChunk).size).toBeGreaterThan(10_000);
  });
});
