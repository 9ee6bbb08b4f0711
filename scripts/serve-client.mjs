#!/usr/bin/env node
// A tiny client of `openai-acp serve` (docs/remote.md): connects over WebSocket (or Streamable
// HTTP with --http), runs `initialize`, `session/new` in a directory on the server, one
// `session/prompt`, prints the answer's text on stdout as it streams, and exits: 0 when the turn
// ended (`end_turn`), 1 otherwise, 2 for bad arguments. Tool calls are named on stderr; their
// permission requests are refused unless --allow is given. A server still starting is waited for
// (up to --wait-ms). It uses the ACP SDK's own client and `ws`, both installed by `npm install`
// in a clone.
//
//   OPENAI_ACP_SERVE_TOKEN=... node scripts/serve-client.mjs --cwd DIR-ON-THE-SERVER
//     [--url http://127.0.0.1:8765/acp] [--http] [--allow] "What does this project do?"
import { client } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const usage = 'Usage: node scripts/serve-client.mjs --cwd DIR [--url URL] [--token SECRET] [--http] [--allow] [--wait-ms MS] PROMPT';
const details = [
  "  --cwd      the session's directory on the server, inside its --root (required)",
  "  --url      the server's /acp endpoint (default http://127.0.0.1:8765/acp)",
  '  --token    the bearer token (default: $OPENAI_ACP_SERVE_TOKEN)',
  '  --http     Streamable HTTP instead of WebSocket',
  '  --allow    allow the tool calls that ask permission (default: refuse them)',
  '  --wait-ms  how long to wait for a server that is still starting (default 10000)',
];
let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8765/acp' },
      cwd: { type: 'string' },
      token: { type: 'string' },
      http: { type: 'boolean', default: false },
      allow: { type: 'boolean', default: false },
      'wait-ms': { type: 'string', default: '10000' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help || positionals.length === 0 || !values.cwd) {
  console.error([usage, ...details].join('\n'));
  process.exit(values.help ? 0 : 2);
}

const token = values.token ?? process.env.OPENAI_ACP_SERVE_TOKEN;
const headers = token ? { Authorization: `Bearer ${token}` } : {};

/** A connection whose `initialize` was answered; retried while the server refuses connections, up to --wait-ms. */
async function connect() {
  const deadline = Date.now() + Number(values['wait-ms']);
  for (;;) {
    const stream = values.http ? createHttpStream(values.url, { headers }) : createWebSocketStream(values.url.replace(/^http/, 'ws'), { WebSocket, headers });
    const connection = client()
      .onNotification('session/update', ({ params }) => {
        const { update } = params;
        if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') process.stdout.write(update.content.text);
        else if (update.sessionUpdate === 'tool_call') console.error(`[tool] ${update.title}`);
      })
      .onRequest('session/request_permission', ({ params }) => {
        const option = params.options.find((o) => o.kind.startsWith(values.allow ? 'allow' : 'reject'));
        console.error(`[permission] ${params.toolCall.title ?? 'a tool call'}: ${option ? option.name : 'cancelled'}`);
        return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
      })
      .connect(stream);
    try {
      await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      return connection;
    } catch (error) {
      connection.close();
      const refused = /ECONNREFUSED|socket hang up|closed/i.test(`${error?.message} ${error?.cause?.message ?? ''} ${JSON.stringify(error?.data ?? '')}`);
      if (!refused || Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}

let connection;
try {
  connection = await connect();
  const { sessionId } = await connection.agent.request('session/new', { cwd: values.cwd, mcpServers: [] });
  const { stopReason } = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: positionals.join(' ') }] });
  process.stdout.write('\n');
  if (stopReason !== 'end_turn') console.error(`the turn ended with ${stopReason}`);
  process.exitCode = stopReason === 'end_turn' ? 0 : 1;
} catch (error) {
  console.error(`serve-client: ${error?.message ?? JSON.stringify(error)}`);
  process.exitCode = 1;
} finally {
  connection?.close();
}
