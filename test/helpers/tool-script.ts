/**
 * Helpers of the end-to-end tool tests: a scripted model (each chat request answered with the
 * next step: tool calls or text), temp workspaces removed after the file's tests, and waiting for
 * the agent's requests to the client.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { chunk, type ChatHandler } from './fake-openai.js';
import type { AgentProcess } from './spawn-agent.js';
import { patientDeadline } from './patience.js';

/** One scripted model answer: tool calls `[name, arguments]` (an object, or the raw arguments text as a model wrote it), or text. */
export type ScriptStep = { calls: Array<[string, Record<string, unknown> | string]> } | { text: string };

/**
 * Answers each chat request with the next step (the last one repeats). Tool call ids are
 * `call_<request number>_<index>`.
 */
export function script(steps: ScriptStep[]): ChatHandler {
  let n = 0;
  return (_req, res) => {
    const step = steps[Math.min(n++, steps.length - 1)]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if ('text' in step) {
      res.write(chunk({ content: step.text }));
      res.write(chunk({}, 'stop', { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }));
    } else {
      step.calls.forEach(([name, args], index) => {
        res.write(chunk({ tool_calls: [{ index, id: `call_${n}_${index}`, type: 'function', function: { name, arguments: '' } }] }));
        res.write(chunk({ tool_calls: [{ index, function: { arguments: typeof args === 'string' ? args : JSON.stringify(args) } }] }));
      });
      res.write(chunk({}, 'tool_calls', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }));
    }
    res.end('data: [DONE]\n\n');
  };
}

/** A `tempDir()` factory whose directories are removed after the test file. */
export function tempDirs(prefix = 'openai-acp-e2e-'): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    dirs.push(dir);
    return dir;
  };
}

/** The `skip`-th request (0 first) the agent sent to the client with this method; waits up to `ms` (at least `PATIENCE_MS`). */
export async function waitForRequest(agent: AgentProcess, method: string, skip = 0, ms = 5000): Promise<any> {
  const until = patientDeadline(ms);
  for (;;) {
    const found = agent.messages.filter((m) => m.method === method && m.id !== undefined)[skip];
    if (found) return found;
    if (Date.now() > until) throw new Error(`no ${method} request; stderr:\n${agent.stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Answers a request of the agent. */
export function answer(agent: AgentProcess, id: unknown, result: unknown): void {
  agent.writeLine(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

/** Whether the process `pid` exists and is not a zombie. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
