// A stand-in for GitHub's REST API as the docs show it (paths, headers, bodies): App endpoints that want the app
// JWT (verified with the test's public key), installation tokens it mints with an expiry, and issue comments that
// want a current installation token. It records every request and can answer one with a chosen failure.
import { createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface JwtClaims {
  iat: number;
  exp: number;
  iss: string | number;
}

/** An RSA key pair for a test App (PKCS#1 PEM, as GitHub's downloaded keys are). */
export function appKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKey, publicKey };
}

/** Verifies an RS256 JWT with `publicKey` and returns its header and claims; throws when the signature is wrong. */
export function verifyJwt(jwt: string, publicKey: string): { header: Record<string, unknown>; claims: JwtClaims } {
  const [header, payload, signature] = jwt.split('.');
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(createPublicKey(publicKey), Buffer.from(signature, 'base64url'))) throw new Error('JWT signature does not verify');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims,
  };
}

export interface GithubStandIn {
  url: string;
  requests: RecordedRequest[];
  /** JWTs seen on app endpoints, verified. */
  jwts: Array<{ header: Record<string, unknown>; claims: JwtClaims; at: number }>;
  /** Installation tokens minted so far, in order. */
  minted: string[];
  comments: Map<number, { body: string; issue: number; repo: string }>;
  /** The next request whose method and path match is answered with `status` (once). */
  failNext(method: string, path: RegExp, status: number): void;
  /** How long minted tokens live (default one hour). */
  tokenLifetimeMs: number;
  close(): Promise<void>;
}

export async function startGithubStandIn(options: { publicKey: string; appId: string; installationId: number }): Promise<GithubStandIn> {
  const requests: RecordedRequest[] = [];
  const jwts: GithubStandIn['jwts'] = [];
  const minted: string[] = [];
  const valid = new Set<string>();
  const comments = new Map<number, { body: string; issue: number; repo: string }>();
  const failures: Array<{ method: string; path: RegExp; status: number }> = [];
  let nextId = 9000;
  const send = (res: ServerResponse, status: number, json: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(json));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: unknown): void => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    const failure = failures.findIndex((f) => f.method === method && f.path.test(path));
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      return send(res, f.status, { message: 'Server Error' });
    }
    if (req.headers.accept !== 'application/vnd.github+json' || req.headers['x-github-api-version'] !== '2022-11-28') {
      return send(res, 415, { message: `unexpected accept ${req.headers.accept} / version ${req.headers['x-github-api-version']}` });
    }
    const auth = req.headers.authorization ?? '';
    const appCall = /^\/app\//.test(path) || /^\/repos\/[^/]+\/[^/]+\/installation$/.test(path);
    if (appCall) {
      // RFC 7235: the scheme is case-insensitive (@octokit/auth-app writes "bearer").
      const match = /^bearer (.+)$/i.exec(auth);
      if (!match) return send(res, 401, { message: 'A JSON web token could not be decoded' });
      try {
        const { header, claims } = verifyJwt(match[1], options.publicKey);
        if (String(claims.iss) !== options.appId) return send(res, 401, { message: 'wrong iss' });
        jwts.push({ header, claims, at: Math.floor(Date.now() / 1000) });
      } catch (err) {
        return send(res, 401, { message: (err as Error).message });
      }
    } else {
      const token = /^token (.+)$/.exec(auth)?.[1];
      if (!token || !valid.has(token)) return send(res, 401, { message: 'Bad credentials' });
    }
    let m: RegExpExecArray | null;
    if (method === 'POST' && (m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path))) {
      if (Number(m[1]) !== options.installationId) return send(res, 404, { message: 'Not Found' });
      const token = `ghs_standin${minted.length + 1}`;
      minted.push(token);
      valid.add(token);
      return send(res, 201, {
        token,
        expires_at: new Date(Date.now() + stand.tokenLifetimeMs).toISOString().replace(/\.\d+Z$/, 'Z'),
        permissions: { issues: 'write' },
      });
    }
    if (method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/installation$/.test(path))
      return send(res, 200, { id: options.installationId, app_id: Number(options.appId) });
    if (method === 'POST' && (m = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(path))) {
      const id = (nextId += 1);
      const text = String((body as { body?: unknown }).body);
      comments.set(id, { body: text, issue: Number(m[2]), repo: m[1] });
      return send(res, 201, { id, body: text, html_url: `https://github.example/${m[1]}/pull/${m[2]}#issuecomment-${id}` });
    }
    if (method === 'PATCH' && (m = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(path))) {
      const comment = comments.get(Number(m[2]));
      if (!comment || comment.repo !== m[1]) return send(res, 404, { message: 'Not Found' });
      comment.body = String((body as { body?: unknown }).body);
      return send(res, 200, { id: Number(m[2]), body: comment.body, html_url: `https://github.example/${m[1]}/pull/${comment.issue}#issuecomment-${m[2]}` });
    }
    return send(res, 404, { message: 'Not Found' });
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stand: GithubStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    jwts,
    minted,
    comments,
    tokenLifetimeMs: 60 * 60_000,
    failNext: (method, path, status) => failures.push({ method, path, status }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return stand;
}
