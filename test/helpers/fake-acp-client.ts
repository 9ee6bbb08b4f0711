/**
 * A fake ACP client for tests of the tool layer and the agent loop: only `request` and
 * `createTerminal` of `AgentContext` (what the tools use), with handlers per method and a log of
 * every call, and fake terminals whose exit the test controls.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';

/** One fake client terminal. `exit()` ends its command; `kill()` ends it with SIGKILL. */
interface FakeTerminal {
  id: string;
  command: string;
  args?: string[] | undefined;
  output: string;
  killed: number;
  released: number;
  exit(status: { exitCode: number | null; signal?: string | null }): void;
}

/** Options of {@link fakeClient}. */
export interface FakeClientOptions {
  /** Answers by method name; may throw or return a promise that never settles. */
  handlers?: Record<string, (params: Record<string, unknown>) => unknown>;
  /** When set, each new terminal exits at once with this status and output. */
  terminalExit?: { exitCode: number | null; output?: string };
  /** createTerminal rejects with this error. */
  terminalError?: Error;
  /** createTerminal answers after this many ms. */
  terminalDelayMs?: number;
  /** The client spawns `command` without a shell, as acpx 0.1 does: a whole command line is a program not found. */
  spawnsWithoutShell?: boolean;
}

/** The fake and what it saw: `log` holds `request:<method>` and `terminal:<id>:<event>` entries in order. */
export function fakeClient(options: FakeClientOptions = {}) {
  const log: string[] = [];
  const requests: { method: string; params: Record<string, unknown> }[] = [];
  const terminals: FakeTerminal[] = [];
  /** Every createTerminal call's parameters, answered or refused. */
  const creates: { command: string; args?: string[] | undefined }[] = [];
  const client = {
    async request(method: string, params: Record<string, unknown>) {
      log.push(`request:${method}`);
      requests.push({ method, params });
      const handler = options.handlers?.[method];
      if (!handler) throw Object.assign(new Error('Method not found'), { code: -32601 });
      return handler(params);
    },
    async createTerminal(params: { command: string; args?: string[] }) {
      creates.push({ command: params.command, args: params.args });
      if (options.terminalDelayMs) await new Promise((resolve) => setTimeout(resolve, options.terminalDelayMs));
      if (options.terminalError) throw options.terminalError;
      if (options.spawnsWithoutShell && params.command.includes(' '))
        throw Object.assign(new Error('Internal error'), { code: -32603, data: { details: `spawn ${params.command} ENOENT` } });
      const id = `term-${terminals.length + 1}`;
      log.push(`terminal:${id}:create`);
      let resolveExit!: (status: { exitCode: number | null; signal: string | null }) => void;
      const exited = new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => (resolveExit = resolve));
      let exitStatus: { exitCode: number | null; signal: string | null } | undefined;
      const terminal: FakeTerminal = {
        id,
        command: params.command,
        args: params.args,
        output: options.terminalExit?.output ?? '',
        killed: 0,
        released: 0,
        exit(status) {
          if (exitStatus) return;
          exitStatus = { exitCode: status.exitCode, signal: status.signal ?? null };
          log.push(`terminal:${id}:exit`);
          resolveExit(exitStatus);
        },
      };
      terminals.push(terminal);
      if (options.terminalExit) terminal.exit({ exitCode: options.terminalExit.exitCode });
      return {
        id,
        currentOutput: async () => ({ output: terminal.output, truncated: false, ...(exitStatus ? { exitStatus } : {}) }),
        waitForExit: () => exited,
        kill: async () => {
          terminal.killed++;
          log.push(`terminal:${id}:kill`);
          terminal.exit({ exitCode: null, signal: 'SIGKILL' });
          return {};
        },
        release: async () => {
          terminal.released++;
          log.push(`terminal:${id}:release`);
          return {};
        },
      };
    },
  };
  return { client: client as unknown as AgentContext, log, requests, terminals, creates };
}
