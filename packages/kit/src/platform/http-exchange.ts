// The shapes of one HTTP exchange with a platform API: what is sent and what came back. Apart from http.ts, so
// that the failure readers can name a response without importing the sender.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  method?: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded; undefined values are left out. */
  form?: Record<string, string | number | boolean | undefined>;
  /** Sent as-is (set content-type in headers). */
  body?: string;
  basicAuth?: { username: string; password: string };
  bearer?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}
