/**
 * Paths opened once: a symlink swapped in a loop (in a worker thread, truly concurrent) while the
 * local backend reads and writes through it never leaks or changes the outside file, and a session
 * folder replaced by a symlink after its roots were set is not followed.
 */
import { mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalBackend } from '../../../src/tools/backends/local-backend.js';
import { pinWorkspaceRoots } from '../../../src/tools/backends/workspace.js';
import { ToolError } from '../../../src/tools/tool.js';

const SECRET = 'outside-secret-5b1f\n';
const signal = new AbortController().signal;
let base: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'oa-swap-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), SECRET);
  await writeFile(path.join(ws, 'plain.txt'), 'inside\n');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

/** Swaps `link` between a link to an inside file and one to the outside secret until told to stop (at most `rounds` times). */
function swapper(dir: string, rounds: number): { started: () => Promise<void>; stop: () => Promise<number> } {
  const worker = new Worker(
    `const { symlinkSync, renameSync, rmSync } = require('node:fs');
     const { parentPort, workerData } = require('node:worker_threads');
     const { dir, outsideFile, rounds } = workerData;
     let stop = false;
     parentPort.on('message', () => { stop = true; });
     const tick = () => new Promise((resolve) => setImmediate(resolve));
     (async () => {
       let done = 0;
       for (; done < rounds && !stop; done++) {
         const next = dir + '/next-link';
         rmSync(next, { force: true });
         symlinkSync(done % 2 ? outsideFile : dir + '/plain.txt', next);
         renameSync(next, dir + '/link');
         if (done === 1000) parentPort.postMessage('swapping');
         if (done % 64 === 0) await tick();
       }
       parentPort.postMessage(done);
     })();`,
    { eval: true, workerData: { dir, outsideFile: path.join(outside, 'secret.txt'), rounds } },
  );
  const messages: unknown[] = [];
  const waiters: (() => void)[] = [];
  worker.on('message', (message: unknown) => {
    messages.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (test: (message: unknown) => boolean) => {
    while (!messages.some(test)) await new Promise<void>((resolve) => waiters.push(resolve));
    return messages.find(test);
  };
  const finished = next((message) => typeof message === 'number') as Promise<number>;
  return {
    started: () => next((message) => message === 'swapping').then(() => undefined),
    stop: async () => {
      worker.postMessage('stop');
      const count = await finished;
      await worker.terminate();
      return count;
    },
  };
}

describe('paths opened once', () => {
  it('reads through a symlink swapped in a loop never return the outside file (bounded: 300 reads)', async () => {
    await symlink(path.join(ws, 'plain.txt'), path.join(ws, 'link'));
    const backend = createLocalBackend(pinWorkspaceRoots({ cwd: ws, extra: [] }));
    const swaps = swapper(ws, 5_000_000);
    await swaps.started();
    let leaks = 0;
    let read = 0;
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      try {
        const text = await backend.readTextFile(path.join(ws, 'link'), signal);
        if (text.includes('outside-secret')) leaks++;
        else read++;
      } catch (error) {
        expect(error).toBeInstanceOf(ToolError);
        refused++;
      }
    }
    const swapped = await swaps.stop();
    expect(leaks).toBe(0);
    expect(read + refused).toBe(300);
    expect(swapped).toBeGreaterThan(0);
  });

  it('writes through a folder swapped for a symlink in a loop never land outside (bounded: 200 writes)', async () => {
    await mkdir(path.join(ws, 'real-dir'));
    await symlink(path.join(ws, 'real-dir'), path.join(ws, 'dir'));
    const backend = createLocalBackend(pinWorkspaceRoots({ cwd: ws, extra: [] }));
    const worker = new Worker(
      `const { symlinkSync, renameSync, rmSync } = require('node:fs');
       const { parentPort, workerData: { ws, outside } } = require('node:worker_threads');
       let stop = false;
       parentPort.on('message', () => { stop = true; });
       (async () => {
         for (let i = 0; !stop && i < 5000000; i++) {
           rmSync(ws + '/next', { force: true });
           symlinkSync(i % 2 ? outside : ws + '/real-dir', ws + '/next');
           renameSync(ws + '/next', ws + '/dir');
           if (i === 1000) parentPort.postMessage('swapping');
           if (i % 64 === 0) await new Promise((r) => setImmediate(r));
         }
         parentPort.postMessage('done');
       })();`,
      { eval: true, workerData: { ws, outside } },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    for (let i = 0; i < 200; i++) await backend.writeTextFile(path.join(ws, 'dir', 'secret.txt'), `written ${i}\n`, signal).catch(() => undefined);
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('a session folder replaced by a symlink after its roots were set is not followed', async () => {
    await writeFile(path.join(outside, 'plain.txt'), 'outside plain\n');
    const backend = createLocalBackend(pinWorkspaceRoots({ cwd: ws, extra: [] }));
    expect(await backend.readTextFile(path.join(ws, 'plain.txt'), signal)).toBe('inside\n');
    await rename(ws, `${ws}-moved`);
    await symlink(outside, ws);
    await expect(backend.readTextFile(path.join(ws, 'secret.txt'), signal)).rejects.toThrow(/outside the workspace/);
    await expect(backend.writeTextFile(path.join(ws, 'plain.txt'), 'changed\n', signal)).rejects.toThrow(/outside the workspace/);
    expect(await readFile(path.join(outside, 'plain.txt'), 'utf8')).toBe('outside plain\n');
  });
});
