// The baseline of the tool-step figure (bench/tools.mjs): the least any agent does per step: read
// the model's answer over node:http (keep-alive), write a tool_call, ask the client for the file
// (fs/read_text_file), write the update, post the next request. No checks, no logic: the floor set
// by the pipes, the loopback socket and node:http on this machine.
import http from 'node:http';
const agent = new http.Agent({ keepAlive: true });
let base,
  sessionId = 's',
  buf = '',
  pendingFs = null,
  id = 1000;
const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
function post(body) {
  return new Promise((resolve) => {
    const req = http.request(base + '/chat/completions', { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(text));
    });
    req.end(JSON.stringify(body));
  });
}
let promptId;
async function turn() {
  const messages = [{ role: 'user', content: 'go' }];
  for (;;) {
    const text = await post({ model: 'bench', messages, stream: true });
    const call = text.includes('tool_calls') && JSON.parse(text.split('\n\n')[0].slice(6)).choices[0].delta.tool_calls?.[0];
    if (!call) return out({ jsonrpc: '2.0', id: promptId, result: { stopReason: 'end_turn' } });
    out({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: call.id, title: 'read' } } });
    const content = await new Promise((resolve) => {
      pendingFs = resolve;
      out({ jsonrpc: '2.0', id: ++id, method: 'fs/read_text_file', params: { sessionId, path: '/x' } });
    });
    out({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'completed' } },
    });
    messages.push({ role: 'assistant', tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content });
  }
}
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    base = process.env.OPENAI_BASE_URL;
    if (m.method === 'session/prompt') {
      promptId = m.id;
      void turn();
    } else if (m.method) out({ jsonrpc: '2.0', id: m.id, result: { sessionId } });
    else if (pendingFs) {
      const p = pendingFs;
      pendingFs = null;
      p(m.result.content);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
