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

/** How deep scrubValue walks objects and arrays before it scrubs the rest as one text. */
const MAX_SCRUB_DEPTH = 200;

/** A value as JSON text (for scrubbing), or a placeholder when even that is too deep to write. */
function deepText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '[a value nested too deeply to show]';
  }
}

/**
 * Holds secrets and replaces every form of each with REDACTED: the gateway's log redactor, the platform kit's
 * error scrubber, the model clients' and the MCP client's all are one of these.
 */
export class SecretScrubber {
  /** The secrets as registered (for `has`). */
  private readonly secrets = new Set<string>();
  /** Grows with every secret registered. */
  private added = 0;
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
    if (secret && !this.secrets.has(secret)) this.added += 1;
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

  /** How many secrets were registered so far (it only grows): a scrubber built on this one knows when to look again. */
  get registeredCount(): number {
    return this.added;
  }

  /** The secrets as registered. */
  registeredSecrets(): string[] {
    return [...this.secrets];
  }

  scrub(text: string): string {
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, REDACTED);
  }

  /** `scrub` over every string inside a value (log metadata): arrays and plain objects copied, errors as their stack. */
  scrubValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.scrub(value);
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return this.scrub(value.stack ?? value.message);
    // Deeper than any real payload: the rest becomes one scrubbed text, never left as it was (nor a stack overflow).
    if (depth > MAX_SCRUB_DEPTH) return this.scrub(deepText(value));
    if (Array.isArray(value)) return value.map((v) => this.scrubValue(v, depth + 1));
    const out: Record<string, unknown> = {};
    // Keys are scrubbed too; defined, not assigned, so a payload's `__proto__` key stays a key.
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, this.scrub(k), { value: this.scrubValue(v, depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  }
}

/**
 * Variable names that hold credentials by convention (GH_TOKEN, ANTHROPIC_API_KEY, WEBHOOK_SECRET, DB_PASSWORD,
 * SIGNING_KEY, ...): their values are secrets wherever they turn up in text that leaves the gateway.
 */
export const CREDENTIAL_NAME = /(^|_)(SECRET|SECRETS|TOKEN|PASSWORD|PASSWD|PASS|API_KEY|APIKEY|PRIVATE_KEY|CREDENTIALS?|AUTH|KEY)(_|$)/i;
/**
 * Environment values shorter than this are not taken as secrets (flags such as AUTH=1 would blank every "1" and
 * "true"); registered secrets are scrubbed at any length.
 */
export const MIN_CREDENTIAL_VALUE = 8;

/** The values of credential-named variables in `env`, and of the variables `names` lists whatever their name. */
export function credentialValues(env: Readonly<Record<string, string | undefined>>, names: readonly string[] = []): string[] {
  const listed = new Set(names);
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_CREDENTIAL_VALUE) continue;
    if (listed.has(name) || CREDENTIAL_NAME.test(name)) out.push(value);
  }
  return out;
}

/**
 * Secrets shorter than this get only SecretScrubber's exact forms: the thorough ones (any case, split by
 * whitespace) would match short values by chance.
 */
export const THOROUGH_FROM_LENGTH = 8;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function hexOf(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX[byte >> 4] + HEX[byte & 15];
  return out;
}

/** RFC 4648 base32 (as `base32` writes it, with its `=` padding). */
function base32Of(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}

const isSpace = (code: number): boolean =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/** One lower-case code unit per code unit (a character whose lower case is longer stays as it is). */
function lowerUnit(ch: string): string {
  const lower = ch.toLowerCase();
  return lower.length === 1 ? lower : ch;
}

/**
 * The forms the thorough pass looks for, lower case and without whitespace: SecretScrubber's, the secret reversed,
 * and its UTF-8 bytes in hex and base32 (padded and not).
 */
export function thoroughForms(secret: string): string[] {
  if (secret.length < THOROUGH_FROM_LENGTH) return [];
  const bytes = utf8.encode(secret);
  const b32 = base32Of(bytes);
  const forms = [...secretForms(secret), [...secret].reverse().join(''), hexOf(bytes), b32, b32.replace(/=+$/, '')];
  const normal = forms.map((form) => Array.from(form.replace(/\s+/gu, ''), lowerUnit).join(''));
  return [...new Set(normal)].filter((form) => form.length >= THOROUGH_FROM_LENGTH);
}

/**
 * SecretScrubber, and more: the text that leaves the gateway with what an agent or a payload put in it (answers,
 * action inputs, failure text, tool output) is also searched for every secret of at least THOROUGH_FROM_LENGTH
 * characters in any case, split by whitespace (`fold -w4`, `xxd -p`, `base64 -w`), reversed, and as hex or base32
 * of its bytes. `live` are scrubbers whose secrets it follows as they are registered (the gateway's redactor).
 * One pass over the text with whitespace taken out and letters lowered (linear in its length), then the matches
 * are replaced in the text as written.
 */
export class ThoroughScrubber extends SecretScrubber {
  private thorough?: RegExp;
  private seen = -1;

  constructor(
    secrets: ReadonlyArray<string | undefined> = [],
    private readonly live: readonly SecretScrubber[] = [],
  ) {
    super(secrets);
  }

  override scrub(text: string): string {
    let out = super.scrub(text);
    for (const other of this.live) out = other.scrub(out);
    const pattern = this.thoroughPattern();
    return pattern ? replaceNormalized(out, pattern) : out;
  }

  private thoroughPattern(): RegExp | undefined {
    let count = this.registeredCount;
    for (const one of this.live) count += one.registeredCount;
    if (count !== this.seen) {
      this.seen = count;
      const forms = new Set([this, ...this.live].flatMap((one) => one.registeredSecrets().flatMap(thoroughForms)));
      const ordered = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.thorough = ordered.length ? new RegExp(ordered.join('|'), 'g') : undefined;
    }
    return this.thorough;
  }
}

/** `text` with every match of `pattern` in its whitespace-free lower-case copy replaced by REDACTED. */
function replaceNormalized(text: string, pattern: RegExp): string {
  let normal = '';
  const at = new Uint32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) continue;
    normal += code < 0x41 || (code > 0x5a && code < 0x80) ? text[i] : lowerUnit(text[i]);
    at[n++] = i;
  }
  pattern.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let m = pattern.exec(normal); m; m = pattern.exec(normal)) {
    const start = at[m.index];
    out += text.slice(from, start) + REDACTED;
    from = at[m.index + m[0].length - 1] + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
