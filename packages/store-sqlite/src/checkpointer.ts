// WAL checkpoints on a thread of their own, so that copying the log into the database file (and its fsyncs)
// never stalls the event loop that answers webhooks.
import { Worker } from 'node:worker_threads';

/**
 * The worker: its own connection to the file, a PASSIVE checkpoint whenever there is something to copy, then a
 * pause. PASSIVE never takes the write lock, so the gateway keeps committing meanwhile; the log restarts from
 * its beginning at the first write after a pass that caught up. Plain JavaScript, so the same code runs from
 * the build and under ts-jest.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
let db;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = ' + workerData.synchronous);
  const stop = new Int32Array(workerData.stop);
  while (Atomics.load(stop, 0) === 0) {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result.busy !== 0 || result.checkpointed >= result.log) Atomics.wait(stop, 0, 0, workerData.idleMs);
  }
} catch (err) {
  // Sent as plain fields: an error thrown out of a thread reaches the parent as a bare object, which
  // printed as [object Object] in the store's warning.
  parentPort.postMessage({ failed: true, message: String((err && err.message) || err), code: err && err.code ? String(err.code) : undefined });
} finally {
  if (db) db.close();
}
`;

/** An Error from whatever a thread reported: a real Error, a cloned one (a plain object) or a message. */
export function threadError(reported: unknown): Error {
  if (reported instanceof Error) return reported;
  const fields = (reported ?? {}) as { message?: unknown; code?: unknown };
  const message = typeof fields.message === 'string' && fields.message ? fields.message : (JSON.stringify(reported) ?? String(reported));
  const err = new Error(typeof fields.code === 'string' && !message.includes(fields.code) ? `${fields.code}: ${message}` : message);
  if (typeof fields.code === 'string') (err as NodeJS.ErrnoException).code = fields.code;
  return err;
}

export interface CheckpointerOptions {
  file: string;
  synchronous: 'normal' | 'full';
  /**
   * Pause after a pass that caught up (or found the file busy), in ms. Longer pauses copy each page once for
   * many commits (a page rewritten by every commit is in the log many times): at 20 ms the checkpoints cost the
   * gateway about 10% of its throughput, at 250 ms no measurable share.
   */
  idleMs?: number;
  /** Called when the thread fails; the store then checkpoints on its own connection again. */
  onError: (err: Error) => void;
}

export interface Checkpointer {
  /** Asks the thread to finish its pass and close its connection; resolves when it has. */
  stop(): Promise<void>;
}

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: require.resolve('better-sqlite3'),
      file: options.file,
      synchronous: options.synchronous.toUpperCase(),
      idleMs: options.idleMs ?? 250,
      stop: stop.buffer,
    },
  });
  // The thread must never keep a process alive that is otherwise done.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (err: unknown) => options.onError(threadError(err)));
  worker.on('message', (message: { failed?: boolean }) => {
    if (message?.failed) options.onError(threadError(message));
  });
  return {
    async stop() {
      // Held until the thread has closed its connection: an unref'd thread's exit does not keep the process
      // alive, so a process with nothing else to do would end before `close()` finishes.
      worker.ref();
      Atomics.store(stop, 0, 1);
      Atomics.notify(stop, 0);
      await exited;
    },
  };
}
