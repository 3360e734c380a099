// The one redactor: every secret the gateway, a plugin or the kit knows is replaced by one marker in every log
// line, error message and shown header, in every form a secret can take on the wire or in an answer that echoes
// it: raw, URL-encoded (component, form with `+`, path and query as a URL parser writes them, either hex case,
// twice encoded), JSON-escaped, and base64 (standard and URL-safe, at any byte alignment inside a longer encoded
// value such as a Basic credential). Core has no runtime dependencies, so this uses only the language's and the
// web platform's globals (TextEncoder, btoa, URL, URLSearchParams), not Node's Buffer.

/** What a secret is replaced with, everywhere (logs, errors, headers the dashboard shows). */
export const REDACTED = '[REDACTED]';

/**
 * The shortest secret that is redacted: every registered secret is, whatever its length (a short
 * credential a plugin registers is still a credential). Values that are not credentials (ports, flags) are kept
 * out by whoever registers them, not by a length here.
 */
export const MIN_SECRET_LENGTH = 1;

// Chance-match guards for base64, not secret minimums: a base64 form is only derived from a secret of at least
// 6 characters, and a fragment inside longer base64 is only used when it has at least 8 characters, because
// shorter base64 text turns up in unrelated encoded data by chance.
const BASE64_FROM_LENGTH = 6;
const MIN_BASE64_FRAGMENT = 8;

const HEX = '0123456789ABCDEF';
const utf8 = new TextEncoder();

/** Percent-encodes the UTF-8 bytes of every character `keep` refuses (upper-case hex, as encoders write it). */
function percentEncode(text: string, keep: (code: number) => boolean): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80 && keep(code)) {
      out += ch;
      continue;
    }
    for (const byte of utf8.encode(ch)) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** What the WHATWG URL parser leaves alone in a path: all printable ASCII but space " # < > ? ` { }. */
const pathSafe = (code: number): boolean => code > 0x20 && code < 0x7f && !'"#<>?`{}'.includes(String.fromCharCode(code));
/** ... and in the query of an http(s) URL: all printable ASCII but space " # < > '. */
const querySafe = (code: number): boolean => code > 0x20 && code < 0x7f && !'"#<>\''.includes(String.fromCharCode(code));

/** application/x-www-form-urlencoded, as URLSearchParams writes it (space as `+`, `~` encoded). */
function formEncode(text: string): string {
  return new URLSearchParams([['', text]]).toString().slice(1);
}

/** JSON string contents as JSON.stringify writes them, and as other encoders do (`\/`, `\uXXXX` for non-ASCII, either case). */
function jsonForms(text: string): string[] {
  const plain = JSON.stringify(text).slice(1, -1);
  const ascii = plain.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const upper = ascii.replace(/\\u[0-9a-f]{4}/g, (u) => `\\u${u.slice(2).toUpperCase()}`);
  return [plain, ascii, upper].flatMap((form) => [form, form.replace(/\//g, '\\/')]);
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The part of base64(prefix + secret) that depends only on the secret, for each of the three byte
 * alignments a secret can have inside longer encoded data (e.g. the password in base64("user:password")).
 */
function base64Fragments(text: string): string[] {
  const bytes = utf8.encode(text);
  const out: string[] = [base64(bytes)];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length);
    shifted.set(bytes, offset);
    const encoded = base64(shifted);
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const fragment = encoded.slice(first, end);
    if (fragment.length >= MIN_BASE64_FRAGMENT) out.push(fragment);
  }
  return out.flatMap((b64) => [b64, b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')]);
}

/** Every form of `secret` worth redacting; the raw value first. None for a value shorter than MIN_SECRET_LENGTH. */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  // In an http(s) path the URL parser also turns a backslash into a slash.
  const encoded = [
    encodeURIComponent(secret),
    formEncode(secret),
    percentEncode(secret, pathSafe),
    percentEncode(secret.replace(/\\/g, '/'), pathSafe),
    percentEncode(secret, querySafe),
  ];
  const forms = [
    secret,
    ...encoded,
    ...encoded.map((form) => form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())),
    encodeURIComponent(encodeURIComponent(secret)),
    ...jsonForms(secret),
    ...(secret.length >= BASE64_FROM_LENGTH ? base64Fragments(secret) : []),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * The secret parts of a URL that is itself a credential (a channel webhook): the URL as written and as a
 * parser normalises it, and its last `segments` path segments (the token of `/api/webhooks/{id}/{token}`),
 * so that the token is redacted wherever it appears, with or without the rest of the URL or a query string,
 * while the harmless rest of the address stays readable in error messages.
 */
export function urlSecrets(url: string | undefined, segments = 1): string[] {
  if (!url) return [];
  const out = [url];
  try {
    const parsed = new URL(url);
    out.push(parsed.toString());
    const parts = parsed.pathname.split('/').filter((part) => part !== '');
    for (const part of parts.slice(-segments)) out.push(decodeURIComponentSafe(part), part);
  } catch {
    // not a URL: the value as written is all there is to redact
  }
  return [...new Set(out)];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Holds secrets and replaces every form of each with REDACTED: the gateway's log redactor, the platform kit's
 * error scrubber, the model clients' and the MCP client's all are one of these.
 */
export class SecretScrubber {
  /** The secrets as registered (for `has`). */
  private readonly secrets = new Set<string>();
  private readonly forms = new Set<string>();
  /** One pass over the text, longest form first at each position (a secret containing another is replaced whole). */
  private pattern?: RegExp;

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /**
   * Registers a secret and every form of it; returns the forms newly registered. A value that is already a
   * registered form (a platform passing on the forms it derived) adds nothing: its own forms are not secrets'.
   */
  add(secret: string | undefined): string[] {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.forms.has(secret)) {
      if (secret) this.secrets.add(secret);
      return [];
    }
    this.secrets.add(secret);
    const added = secretForms(secret).filter((form) => !this.forms.has(form));
    for (const form of added) this.forms.add(form);
    const ordered = [...this.forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.pattern = new RegExp(ordered.join('|'), 'g');
    return added;
  }

  /** Registers the `user:password` pair of an HTTP Basic credential, including its base64 form. */
  addBasicAuth(user: string, password: string): string[] {
    return [...this.add(base64(utf8.encode(`${user}:${password}`))), ...this.add(password)];
  }

  /** Whether `value` is one of the registered secrets as given (child processes leave such variables out). */
  has(value: string): boolean {
    return this.secrets.has(value);
  }

  scrub(text: string): string {
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, REDACTED);
  }

  /** `scrub` over every string inside a value (log metadata): arrays and plain objects copied, errors as their stack. */
  scrubValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return this.scrub(value.stack ?? value.message);
    if (Array.isArray(value)) return value.map((v) => this.scrubValue(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.scrubValue(v, depth + 1);
    return out;
  }
}
