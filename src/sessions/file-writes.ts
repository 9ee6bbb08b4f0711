/**
 * The file system steps a durable store is made of: writes to one key in call order, a file
 * created whole (temporary file, then a hard link that fails if the name exists), and the
 * directory fsync that makes a name added or removed survive power loss.
 */
import { constants, promises as fsp } from 'node:fs';

/** The `code` of a file system error (`ENOENT`, `EEXIST`, …), or `undefined`. */
export const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/**
 * A queue per key: the function it returns runs `work` after every earlier call for the same key
 * has settled (fulfilled or rejected), and forgets a key once its queue is empty.
 */
export function createSerializer(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => tails.get(key) === tail && tails.delete(key));
    return run;
  };
}

/** fsync a directory, so a name just added or removed survives power loss (unsupported on some platforms). */
export async function syncDir(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EINVAL', 'EPERM', 'ENOTSUP', 'EBADF'].includes(errorCode(error) ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** Creates `file` (must not exist) with mode 0600 holding `data`, fsynced. */
async function writeNewFile(file: string, data: string): Promise<void> {
  const handle = await fsp.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates `file` holding `data`, whole or not at all: written and fsynced as `temp` (which must
 * not exist; removed afterwards in any case), then hard-linked into place, so a reader sees no
 * part of it and two creators cannot both succeed. Where the file system has no hard links (some
 * network and FAT file systems) it checks, then renames. The directory is not fsynced ({@link syncDir}).
 * @returns false when `file` already exists (nothing written to it).
 * @throws the file system's error for anything else.
 */
export async function createWhole(file: string, temp: string, data: string): Promise<boolean> {
  await writeNewFile(temp, data);
  try {
    try {
      await fsp.link(temp, file);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      const exists = await fsp.access(file).then(
        () => true,
        () => false,
      );
      if (exists) return false;
      await fsp.rename(temp, file);
    }
    return true;
  } finally {
    await fsp.unlink(temp).catch(() => undefined);
  }
}
