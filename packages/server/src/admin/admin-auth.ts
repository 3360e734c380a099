// Who may use /api and /ui: the admin token (as a bearer token, or as the dashboard's signed session cookie), or,
// when no token is configured, loopback clients only. Also the CSRF rule for the actions (POST).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export type AdminAccess = { ok: true; via: 'token' | 'session' | 'loopback' } | { ok: false; status: 401 | 403; message: string };

export const SESSION_COOKIE = 'hookwise_admin';
export const CSRF_HEADER = 'x-hookwise-csrf';
const SESSION_MS = 12 * 60 * 60 * 1000;
/** Signed-out sessions remembered until they expire; beyond this many, the oldest go first. */
const MAX_REVOKED = 10_000;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of two strings of any lengths (both are hashed first). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** The Host header's name without the port, brackets removed. */
function hostName(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  return (bracketed ? bracketed[1] : host.replace(/:\d+$/, '')).toLowerCase();
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** How a revoked session is remembered: a digest, so that the file holds no usable cookie. */
function revokedKey(value: string): string {
  return createHash('sha256').update(`hookwise-admin-revoked\u0000${value}`).digest('hex');
}

export class AdminAuth {
  /** Signs sessions; derived from the token, so a new token ends every session. */
  private readonly sessionKey: Buffer;
  /** The CSRF token of loopback mode: new per process. */
  private readonly loopbackCsrf = randomBytes(24).toString('hex');
  /**
   * Signed-out sessions (digest of the cookie -> expiry): a cookie is a bearer credential, so sign-out must end it
   * here too. Kept in `revokedFile` as well, so that a restart (same token, same session key) does not bring it back.
   */
  private readonly revoked = new Map<string, number>();
  /** Sessions expiring up to this were issued before the revocation list was lost (a damaged file): refused. */
  private revokeAllBefore = 0;

  constructor(
    private readonly token: string | undefined,
    private readonly now: () => number = Date.now,
    /** Where signed-out sessions are kept across restarts (`<config_dir>/admin_sessions_revoked.json`); none: memory only. */
    private readonly revokedFile?: string,
  ) {
    this.sessionKey = digest(`hookwise-admin-session\u0000${token ?? randomBytes(32).toString('hex')}`);
    if (token !== undefined && revokedFile) this.readRevoked(revokedFile);
  }

  get requiresToken(): boolean {
    return this.token !== undefined;
  }

  /**
   * Without a token: the TCP peer must be loopback, no proxy header may be present (a proxy on the same host would
   * make every client look local), and the Host header must name loopback (a DNS-rebinding page cannot).
   */
  private loopbackOnly(req: IncomingMessage): boolean {
    if (!isLoopbackAddress(req.socket?.remoteAddress)) return false;
    if (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined) return false;
    const host = hostName(req);
    return host === 'localhost' || isLoopbackAddress(host);
  }

  check(req: IncomingMessage): AdminAccess {
    if (this.token === undefined) {
      if (this.loopbackOnly(req)) return { ok: true, via: 'loopback' };
      return {
        ok: false,
        status: 403,
        message:
          'without admin.token the admin API and dashboard answer loopback clients only (direct, no proxy headers, Host localhost or 127.0.0.1); set admin.token to use them from elsewhere',
      };
    }
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(.+)$/i.exec(authorization);
      if (match && sameSecret(match[1].trim(), this.token)) return { ok: true, via: 'token' };
      return { ok: false, status: 401, message: 'the admin token was not accepted' };
    }
    const session = cookie(req, SESSION_COOKIE);
    if (session !== undefined && this.validSession(session)) return { ok: true, via: 'session' };
    return { ok: false, status: 401, message: 'admin token required: send Authorization: Bearer <admin.token>, or sign in at /ui' };
  }

  /** A bearer token cannot be sent by another site's page; a cookie can, so cookie and loopback actions need the CSRF header. */
  checkCsrf(req: IncomingMessage, access: Extract<AdminAccess, { ok: true }>): boolean {
    if (access.via === 'token') return true;
    if (!this.sameOrigin(req)) return false;
    const sent = req.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || sent === '') return false;
    // Loopback mode: the custom header itself is the proof (a cross-site request with it needs a CORS preflight,
    // which is never granted), so the CLI can act without a page; the page sends the real token all the same.
    if (access.via === 'loopback') return true;
    const session = cookie(req, SESSION_COOKIE);
    return session !== undefined && sameSecret(sent, this.csrfToken(session));
  }

  /** The CSRF token a page embeds for its own requests. */
  csrfFor(req: IncomingMessage, access: Extract<AdminAccess, { ok: true }>): string {
    if (access.via === 'session') {
      const session = cookie(req, SESSION_COOKIE);
      if (session !== undefined) return this.csrfToken(session);
    }
    return this.loopbackCsrf;
  }

  /** Whether a submitted token is the admin token. */
  accepts(token: string): boolean {
    return this.token !== undefined && sameSecret(token, this.token);
  }

  /** A new session cookie's value: its expiry and a MAC over it. */
  newSession(): { value: string; maxAgeSeconds: number } {
    const expires = this.now() + SESSION_MS;
    return { value: `${expires}.${this.mac(`session:${expires}`)}`, maxAgeSeconds: SESSION_MS / 1000 };
  }

  /**
   * Ends the request's session on the server: its cookie is refused from now on, even if a copy survives, and after
   * a restart. Returns why the revocation could not be kept on disk (it still holds until this process ends).
   */
  revoke(req: IncomingMessage): string | undefined {
    const value = cookie(req, SESSION_COOKIE);
    if (value === undefined || !this.validSession(value)) return undefined;
    const now = this.now();
    for (const [old, expires] of this.revoked) if (expires <= now) this.revoked.delete(old);
    if (this.revoked.size >= MAX_REVOKED) this.revoked.delete(this.revoked.keys().next().value as string);
    this.revoked.set(revokedKey(value), Number(value.split('.')[0]));
    return this.writeRevoked();
  }

  private readRevoked(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return; // No sign-out yet.
    }
    try {
      const kept = JSON.parse(text) as { revoked?: Record<string, unknown>; revoke_all_before?: unknown };
      const entries = kept.revoked ?? {};
      const now = this.now();
      if (typeof kept.revoke_all_before === 'number' && kept.revoke_all_before > now) this.revokeAllBefore = kept.revoke_all_before;
      for (const [key, expires] of Object.entries(entries))
        if (/^[0-9a-f]{64}$/.test(key) && typeof expires === 'number' && expires > now) this.revoked.set(key, expires);
    } catch {
      // A damaged file cannot say which sessions ended: every session of this key ends (the operator signs in again).
      this.revokeAllBefore = this.now() + SESSION_MS;
    }
  }

  private writeRevoked(): string | undefined {
    const file = this.revokedFile;
    if (!file || this.token === undefined) return undefined;
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(
        temp,
        `${JSON.stringify({ revoked: Object.fromEntries(this.revoked), ...(this.revokeAllBefore > this.now() ? { revoke_all_before: this.revokeAllBefore } : {}) })}\n`,
        { mode: 0o600, flag: 'wx' },
      );
      renameSync(temp, file);
      return undefined;
    } catch (err) {
      rmSync(temp, { force: true });
      return `${file}: ${(err as Error).message}`;
    }
  }

  /** An Origin header, when a browser sends one, must be this server's own (http or https, as the Host names it). */
  sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    const host = req.headers.host;
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  }

  private validSession(value: string): boolean {
    const match = /^(\d{10,16})\.([0-9a-f]{64})$/.exec(value);
    if (!match) return false;
    const expires = Number(match[1]);
    if (!(expires > this.now()) || expires <= this.revokeAllBefore || this.revoked.has(revokedKey(value))) return false;
    return sameSecret(match[2], this.mac(`session:${expires}`));
  }

  private csrfToken(session: string): string {
    return this.mac(`csrf:${session}`);
  }

  private mac(text: string): string {
    return createHmac('sha256', this.sessionKey).update(text).digest('hex');
  }
}
