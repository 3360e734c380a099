// A stand-in for the parts of GitHub's REST API the pr-review example meets, in the shapes GitHub's docs show: the
// App's installation token (POST /app/installations/{id}/access_tokens with the app JWT, RS256, verified with the
// test's public key), issue comments created and edited with that token, labels added and pull-request reviews
// posted with it (the gateway's actions, as the App), and the pull request's diff (GET /repos/{owner}/{repo}/pulls/{n} with Accept:
// application/vnd.github.diff, unauthenticated as for a public repository). Every request is recorded.
import { createPublicKey, createVerify } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface GithubApi {
  url: string;
  /** host:port, for the agent sandbox's network list. */
  host: string;
  requests: Recorded[];
  comments: Map<number, { body: string; issue: number; by: string }>;
  labels: string[];
  /** Reviews posted (POST /repos/{owner}/{repo}/pulls/{n}/reviews), with the pull request's number. */
  reviews: Array<{ pr: number; body: Record<string, unknown> }>;
  jwtClaims: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export const INSTALLATION_TOKEN = 'ghs_prReviewInstallation1';
export const DIFF = 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n Hello World\n+More information.\n';

function verifyJwt(jwt: string, publicKey: string): Record<string, unknown> {
  const [header, payload, signature] = jwt.split('.');
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(createPublicKey(publicKey), Buffer.from(signature ?? '', 'base64url'))) throw new Error('bad JWT signature');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export async function startGithubApi(options: { publicKey: string; installationId: number }): Promise<GithubApi> {
  const requests: Recorded[] = [];
  const comments = new Map<number, { body: string; issue: number; by: string }>();
  const labels: string[] = [];
  const reviews: GithubApi['reviews'] = [];
  const jwtClaims: Array<Record<string, unknown>> = [];
  let nextId = 1000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      const path = (req.url ?? '/').split('?')[0];
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const send = (status: number, value: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof value === 'string' ? value : JSON.stringify(value));
      };
      const auth = req.headers.authorization ?? '';
      const asApp = /^(token|bearer) /i.test(auth) && auth.replace(/^\S+ /, '') === INSTALLATION_TOKEN;
      let m: RegExpExecArray | null;
      if (req.method === 'POST' && path === `/app/installations/${options.installationId}/access_tokens`) {
        try {
          jwtClaims.push(verifyJwt(auth.replace(/^bearer /i, ''), options.publicKey));
        } catch {
          return send(401, { message: 'A JSON web token could not be decoded' });
        }
        return send(201, { token: INSTALLATION_TOKEN, expires_at: new Date(Date.now() + 3600_000).toISOString() });
      }
      if (req.method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(path))) {
        if (req.headers.accept !== 'application/vnd.github.diff') return send(415, { message: 'ask for the diff' });
        return send(200, DIFF, 'text/plain; charset=utf-8');
      }
      if (req.method === 'POST' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(path))) {
        if (!asApp) return send(401, { message: 'Bad credentials' });
        const id = nextId++;
        comments.set(id, { body: String(body?.body), issue: Number(m[1]), by: 'pr-review-app[bot]' });
        return send(201, {
          id,
          body: body?.body,
          html_url: `https://github.com/x/pull/${m[1]}#issuecomment-${id}`,
          user: { login: 'pr-review-app[bot]', type: 'Bot' },
        });
      }
      if (req.method === 'PATCH' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(path))) {
        if (!asApp) return send(401, { message: 'Bad credentials' });
        const comment = comments.get(Number(m[1]));
        if (!comment) return send(404, { message: 'Not Found' });
        comment.body = String(body?.body);
        return send(200, { id: Number(m[1]), body: comment.body, html_url: `https://github.com/x#issuecomment-${m[1]}` });
      }
      if (req.method === 'POST' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/.exec(path))) {
        if (!asApp) return send(401, { message: 'Bad credentials' });
        labels.push(...((body?.labels as string[]) ?? []));
        return send(
          200,
          labels.map((name) => ({ name })),
        );
      }
      if (req.method === 'POST' && (m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/reviews$/.exec(path))) {
        if (!asApp) return send(401, { message: 'Bad credentials' });
        reviews.push({ pr: Number(m[1]), body: body ?? {} });
        return send(200, { id: 80 + reviews.length, state: 'COMMENTED', body: body?.body, html_url: `https://github.com/x/pull/${m[1]}#pullrequestreview-1` });
      }
      send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    comments,
    labels,
    reviews,
    jwtClaims,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
