// The code of an expression worker (expression-pool.ts), run with `new Worker(code, {eval: true})`: a string, not a
// module, because the gateway runs from TypeScript sources in tests and from dist in production, and a worker needs
// plain JavaScript either way. It keeps the payload of the job it is serving (sent once, with the job's first
// expression), compiles each expression once, and answers a summary of the result, never the result itself (an
// expression may give back the whole payload).
export const EXPRESSION_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const jsonata = require(workerData.jsonataPath);
const compiled = new Map();
let job;
let payload;

function compile(text) {
  let expression = compiled.get(text);
  if (!expression) {
    if (compiled.size >= 256) compiled.clear();
    expression = jsonata(text, workerData.bounds);
    compiled.set(text, expression);
  }
  return expression;
}

function summary(value) {
  if (value === undefined) return { kind: 'nothing' };
  if (Array.isArray(value)) return { kind: 'list', length: value.length };
  if (value !== null && typeof value === 'object') return { kind: 'object' };
  if (typeof value === 'string' && value.length > workerData.preview) return { kind: 'value', value: value.slice(0, workerData.preview + 1) };
  if (typeof value === 'function') return { kind: 'object' };
  return { kind: 'value', value };
}

parentPort.on('message', async (message) => {
  try {
    if (message.job !== job) {
      job = message.job;
      payload = JSON.parse(message.payload);
    }
    const result = await compile(message.text).evaluate(payload);
    parentPort.postMessage({ id: message.id, result: summary(result) });
  } catch (err) {
    const e = err || {};
    parentPort.postMessage({
      id: message.id,
      error: { code: typeof e.code === 'string' ? e.code : undefined, message: String(e.message || e), position: typeof e.position === 'number' ? e.position : undefined },
    });
  }
});
`;
