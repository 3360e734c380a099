// Connecting to Redis: one checked connection, a clear error when Redis is unreachable, passwords kept out of logs.
import { HookwiseError, errorMessage } from '@hookwise/core';
import IORedis, { type Redis } from 'ioredis';

/** The URL with any user/password replaced, fit for logs and error messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^(\w+:\/\/)[^@/]*@/, '$1***@');
}

/**
 * How long one Redis command may go without an answer before it fails. bullmq requires
 * `maxRetriesPerRequest: null`, under which a command sent while Redis is away waits in ioredis's offline queue
 * for the reconnect, with no end: a caller without a deadline of its own (the worker completing a job, the
 * shutdown handing a job back) then waited forever, and a gateway whose Redis went away mid-job never stopped.
 * A command still fails no sooner than this, so a Redis restart of a few seconds costs nothing; the request
 * path's own store deadline (5 s) answers the sender first. A command that timed out while queued may still run
 * once Redis is back, as one whose answer was lost would (the job's lock and the delivery-id claim make that harmless).
 */
export const COMMAND_TIMEOUT_MS = 5000;

/**
 * Opens the connection shared by the store and bullmq (which requires `maxRetriesPerRequest: null`) and
 * proves it works with a PING, so that a wrong `store.url` stops the gateway at startup, not at the first event.
 */
export async function connectRedis(url: string, timeoutMs = 5000, commandTimeoutMs = COMMAND_TIMEOUT_MS): Promise<Redis> {
  const shown = redactRedisUrl(url);
  let client: Redis;
  try {
    client = new IORedis(url, { maxRetriesPerRequest: null, lazyConnect: true, commandTimeout: commandTimeoutMs });
  } catch (err) {
    throw new HookwiseError('HW_E_STORE', `store.url ${shown} is not a Redis URL (${errorMessage(err)}); use redis://[:password@]host:port[/db]`);
  }
  let lastError = '';
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(lastError || `no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    client.disconnect();
    const reason = lastError || errorMessage(err);
    throw new HookwiseError('HW_E_STORE', `cannot reach Redis at ${shown}: ${reason.replace(url, shown)}; start Redis or fix store.url`, { cause: err });
  } finally {
    if (timer) clearTimeout(timer);
  }
  return client;
}
