// A `transform: { expression }` run: JSONata over an attacker-written payload, so it is bounded like a
// filter expression (ingest/expression-pool.ts) but needs the whole result back, not a summary: each evaluation
// runs in a worker thread of its own with a limited heap, terminated when the time limit passes. At most
// TRANSFORM_EXPRESSION_WORKERS run at once; the rest wait inside the same time limit.
import { Worker } from 'node:worker_threads';
import { TransformFailed } from './transform-command';

export const TRANSFORM_EXPRESSION_WORKERS = 2;
const HEAP_MB = 64;

// Plain JavaScript, run with eval: the gateway runs from TypeScript sources in tests and from dist in production.
const SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const jsonata = require(workerData.jsonataPath);
(async () => {
  try {
    const expression = jsonata(workerData.text, { timeout: workerData.timeoutMs, stack: 500, sequence: 100000 });
    const value = await expression.evaluate(JSON.parse(workerData.payload));
    parentPort.postMessage({ json: value === undefined ? undefined : JSON.stringify(value) });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
})();
`;

let running = 0;
const waiting: Array<() => void> = [];

async function slot(deadline: number): Promise<() => void> {
  while (running >= TRANSFORM_EXPRESSION_WORKERS) {
    const left = deadline - Date.now();
    if (left <= 0) throw new TransformFailed('was not evaluated: every transform worker stayed busy until the time limit (the gateway is busy)');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const at = waiting.indexOf(done);
        if (at !== -1) waiting.splice(at, 1);
        resolve();
      }, left);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      waiting.push(done);
    });
  }
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

/** The expression's result (undefined: it gave nothing), or TransformFailed. */
export async function runTransformExpression(text: string, payloadJson: string, timeoutMs: number): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  const release = await slot(deadline);
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const worker = new Worker(SOURCE, {
        eval: true,
        workerData: { jsonataPath: require.resolve('jsonata'), text, payload: payloadJson, timeoutMs },
        resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      const timer = setTimeout(
        () => finish(() => reject(new TransformFailed(`did not finish within ${timeoutMs / 1000}s (raise transform.timeout_seconds or simplify it)`))),
        Math.max(1, deadline - Date.now()),
      );
      worker.on('message', (message: { json?: string; error?: string }) =>
        finish(() =>
          message.error !== undefined
            ? reject(new TransformFailed(`failed: ${message.error}`))
            : resolve(message.json === undefined ? undefined : JSON.parse(message.json)),
        ),
      );
      worker.on('error', (err: Error & { code?: string }) =>
        finish(() =>
          reject(new TransformFailed(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (the limit is ${HEAP_MB} MB)` : `stopped: ${err.message}`)),
        ),
      );
      worker.on('exit', () => finish(() => reject(new TransformFailed('stopped before it finished'))));
    });
  } finally {
    release();
  }
}
