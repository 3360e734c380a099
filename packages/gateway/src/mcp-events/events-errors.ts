// The JSON-RPC errors of the Events extension (SEP-3415, "Error Handling"): thrown by the methods, turned into a
// JSON-RPC error response with this code, message and data by the MCP SDK.

export const EVENTS_ERRORS = {
  InvalidParams: -32602,
  NotFound: -32023,
  Forbidden: -32024,
  Unsupported: -32026,
} as const;

export class EventsError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string): EventsError => new EventsError(EVENTS_ERRORS.InvalidParams, message);
export const notFound = (name: string): EventsError => new EventsError(EVENTS_ERRORS.NotFound, `no event type '${name}'`, { kind: 'event' });
