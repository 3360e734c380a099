// Reads a request body with a byte limit, and parses it as JSON or as a form with a `payload=` JSON field.
import type { HeaderMap } from '@hookwise/core';
import { headerValue } from '@hookwise/core';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body is larger than ${limit} bytes`);
  }
}

/** The client hung up before its body was complete: its fault, not the gateway's, and nobody is left to answer. */
export class BodyAbortedError extends Error {
  constructor(readonly received: number) {
    super(`the client closed the connection after ${received} bytes of the body`);
  }
}

/** Node's request stream errors with `aborted` (ECONNRESET) when the peer hangs up mid-body. */
function isClientHangUp(err: Error): boolean {
  return (err as NodeJS.ErrnoException).code === 'ECONNRESET' || err.message === 'aborted';
}

/** Collects chunks until the stream ends; stops reading (pauses) as soon as the limit is passed. */
export function readBodyLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(isClientHangUp(err) ? new BodyAbortedError(size) : err);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

export interface ParsedPayload {
  payload: Record<string, unknown>;
  /** The JSON text the payload was parsed from (the body, or the form's `payload` field). */
  json: string;
}

/** The payload object and its JSON text, or undefined when the body is not a JSON object (directly or as form field `payload`). */
export function parsePayload(raw: Buffer, headers: HeaderMap): ParsedPayload | undefined {
  const contentType = (headerValue(headers, 'content-type') ?? '').toLowerCase();
  let text = raw.toString('utf8');
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    const field = new URLSearchParams(text).get('payload');
    if (field === null) return undefined;
    text = field;
  }
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? { payload: value as Record<string, unknown>, json: text } : undefined;
  } catch {
    return undefined;
  }
}

/** The payload object, or undefined when the body is not a JSON object (directly or as form field `payload`). */
export function parseBody(raw: Buffer, headers: HeaderMap): Record<string, unknown> | undefined {
  return parsePayload(raw, headers)?.payload;
}
