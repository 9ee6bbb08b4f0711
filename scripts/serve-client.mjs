#!/usr/bin/env node
// A tiny client of `openai-acp serve` (docs/remote.md): connects over WebSocket (or Streamable
// HTTP with --http), runs `initialize`, `session/new` in a directory on the server, one
// `session/prompt`, prints the answer's text on stdout as it streams, and exits: 0 when the turn
// ended (`end_turn`), 1 otherwise. Tool calls are printed on stderr; their permission requests
// are refused unless --allow is given. It uses the ACP SDK's own client and `ws`, both installed
// by `npm install` in a clone.
//
//   OPENAI_ACP_SERVE_TOKEN=... node scripts/serve-client.mjs --cwd DIR-ON-THE-SERVER
//     [--url http://127.0.0.1:8765/acp] [--http] [--allow] "What does this project do?"
import { client } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const usage = 'Usage: node scripts/serve-client.mjs --cwd DIR [--url URL] [--token SECRET] [--http] [--allow] PROMPT';
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
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help || positionals.length === 0 || !values.cwd) {
  console.error(
    `${usage}\n  --url    the server's /acp endpoint (default http://127.0.0.1:8765/acp)\n  --cwd    the session's directory on the server, inside its --root (required)\n  --token  the bearer token (default: $OPENAI_ACP_SERVE_TOKEN)\n  --http   Streamable HTTP instead of WebSocket\n  --allow  allow the tool calls that ask permission (default: refuse them)`,
  );
  process.exit(values.help ? 0 : 2);
}

const token = values.token ?? process.env.OPENAI_ACP_SERVE_TOKEN;
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const stream = values.http ? createHttpStream(values.url, { headers }) : createWebSocketStream(values.url.replace(/^http/, 'ws'), { WebSocket, headers });
const connection = client()
  .onNotification('session/update', ({ params }) => {
    const { update } = params;
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') process.stdout.write(update.content.text);
    else if (update.sessionUpdate === 'tool_call') console.error(`[tool] ${update.title}`);
  })
  .onRequest('session/request_permission', ({ params }) => {
    const kind = values.allow ? 'allow' : 'reject';
    const option = params.options.find((o) => o.kind.startsWith(kind));
    console.error(`[permission] ${params.toolCall.title ?? 'a tool call'}: ${option ? option.name : 'cancelled'}`);
    return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
  })
  .connect(stream);

try {
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd: values.cwd, mcpServers: [] });
  const { stopReason } = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: positionals.join(' ') }] });
  process.stdout.write('\n');
  if (stopReason !== 'end_turn') console.error(`the turn ended with ${stopReason}`);
  process.exitCode = stopReason === 'end_turn' ? 0 : 1;
} catch (error) {
  console.error(`serve-client: ${error?.message ?? JSON.stringify(error)}`);
  process.exitCode = 1;
} finally {
  connection.close();
}
