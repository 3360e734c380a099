// Scrubs a platform's secrets from every error message and log line the kit produces, in every form a
// secret can take on the wire or in an answer that echoes it: raw, URL-encoded (component, form with `+`,
// path and query as a URL parser writes them, either hex case, twice encoded), JSON-escaped, and base64
// (standard and URL-safe, at any byte alignment inside a longer encoded value such as a Basic credential).

export const REDACTED = '[REDACTED]';

/** Shorter values would scrub ordinary words; no real credential is that short. */
const MIN_SECRET_LENGTH = 4;
/** A base64 fragment shorter than this could match unrelated base64 text by chance. */
const MIN_BASE64_FRAGMENT = 8;

const HEX = '0123456789ABCDEF';

/** Percent-encodes the UTF-8 bytes of every character `keep` refuses (upper-case hex, as encoders write it). */
function percentEncode(text: string, keep: (code: number) => boolean): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80 && keep(code)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
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

/**
 * The part of base64(prefix + secret) that depends only on the secret, for each of the three byte
 * alignments a secret can have inside longer encoded data (e.g. the password in base64("user:password")).
 */
function base64Fragments(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: string[] = [Buffer.from(bytes).toString('base64')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const fragment = encoded.slice(first, end);
    if (fragment.length >= MIN_BASE64_FRAGMENT) out.push(fragment);
  }
  return out.flatMap((b64) => [b64, b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')]);
}

/** Every form of `secret` worth scrubbing; the raw value first. */
export function secretForms(secret: string): string[] {
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
    ...(secret.length >= 6 ? base64Fragments(secret) : []),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * The secret parts of a URL that is itself a credential (a channel webhook): the URL as written and as a
 * parser normalises it, and its last `segments` path segments (the token of `/api/webhooks/{id}/{token}`),
 * so that the token is scrubbed wherever it appears, with or without the rest of the URL or a query string,
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
    // not a URL: the value as written is all there is to scrub
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

export class SecretScrubber {
  private readonly forms = new Set<string>();
  /** The forms longest first (a secret containing another is replaced whole); rebuilt after each add. */
  private ordered: string[] = [];

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Registers a secret; returns every form it was registered under (for the gateway's own redactor). */
  add(secret: string | undefined): string[] {
    if (!secret || secret.length < MIN_SECRET_LENGTH) return [];
    const forms = secretForms(secret);
    for (const form of forms) this.forms.add(form);
    this.ordered = [...this.forms].sort((a, b) => b.length - a.length);
    return forms;
  }

  /** Registers the `user:password` pair of an HTTP Basic credential, including its base64 form. */
  addBasicAuth(user: string, password: string): string[] {
    const encoded = Buffer.from(`${user}:${password}`).toString('base64');
    const forms = [...this.add(encoded), ...this.add(password)];
    return forms;
  }

  scrub(text: string): string {
    let out = text;
    for (const form of this.ordered) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }
}
