// An ACP agent started as a client starts one (a command, its stdin and stdout a pipe), spoken to in
// NDJSON JSON-RPC as the ACP registry's auth check and editors do, with every stdout line kept so
// that "stdout carries only JSON-RPC" can be checked after the run.
import { spawn } from 'node:child_process';

/**
 * Starts `command args` in its own process group (so the whole tree, npx and the agent under it,
 * can be stopped). `lines` gets each stdout line as `{ text, message }` (`message` undefined when
 * the line is not a JSON-RPC 2.0 message).
 */
export function startAcpChild(command, args, { cwd, env }) {
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const lines = [];
  let stderr = '';
  let buffer = '';
  let waiters = [];
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  child.on('error', (error) => {
    stderr += `${error.message}\n`;
  });
  const heard = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', (data) => {
    buffer += data;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const text = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      lines.push({ text, message: jsonRpc(text) });
    }
    heard();
  });
  child.stderr.setEncoding('utf8').on('data', (data) => (stderr += data));
  child.stdin.on('error', () => undefined);
  void exited.then(heard);

  /** Resolves with the first line after `from` that `found` accepts; rejects after `timeoutMs` or when the process has ended without it. */
  const waitFor = (found, from, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`no ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
      const settle = (error, line) => {
        clearTimeout(timer);
        waiters = waiters.filter((waiter) => waiter !== check);
        error ? reject(error) : resolve(line);
      };
      const check = () => {
        const line = lines.slice(from).find(found);
        if (line) settle(undefined, line);
        else if (child.exitCode !== null || child.signalCode !== null)
          settle(new Error(`the agent ended (${child.exitCode ?? child.signalCode}) before ${what}`));
      };
      waiters.push(check);
      check();
    });
  let nextId = 0;
  return {
    lines,
    stderr: () => stderr,
    /** Writes one JSON-RPC message line. */
    send: (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    /** The next stdout line, whatever it is, within `timeoutMs` (the registry's auth check reads one line). */
    nextLine: (timeoutMs, what) => waitFor(() => true, lines.length, timeoutMs, what),
    /** Sends request `method` and resolves with its answer message (`result` or `error`). */
    async request(method, params, timeoutMs) {
      const id = ++nextId;
      const from = lines.length;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      const line = await waitFor((l) => l.message?.id === id && l.message.method === undefined, from, timeoutMs, `answer to ${method}`);
      return line.message;
    },
    /** Ends stdin (the agent's cue to exit), waits up to `graceMs` for it to exit, then stops its process group. Resolves with the exit code or signal. */
    async close(graceMs = 5000) {
      child.stdin.end();
      const timer = setTimeout(() => stopGroup(child.pid), graceMs);
      const end = await exited;
      clearTimeout(timer);
      // Whatever npx started and left behind goes with it.
      stopGroup(child.pid);
      return end;
    },
  };
}

/** Stops process group `pid` (the child and what it started); nothing when it is gone already. */
function stopGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** `text` as a JSON-RPC 2.0 message object, or undefined when it is not one. */
function jsonRpc(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) && value.jsonrpc === '2.0' ? value : undefined;
  } catch {
    return undefined;
  }
}
