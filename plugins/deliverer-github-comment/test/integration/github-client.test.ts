// createGithubClient in App mode against the GitHub stand-in: the app JWT as GitHub documents it, the installation
// token minted once, cached and minted again near its expiry, the installation looked up for a repository, and the
// exact headers of every call.
import { createGithubClient } from '@hookwise/plugin-deliverer-github-comment';
import { appKeyPair, startGithubStandIn, type GithubStandIn } from '../github-stand-in';

const APP_ID = '31337';
const INSTALLATION = 4242;
const keys = appKeyPair();
let stand: GithubStandIn;

beforeEach(async () => {
  stand = await startGithubStandIn({ publicKey: keys.publicKey, appId: APP_ID, installationId: INSTALLATION });
});
afterEach(() => stand.close());

const comment = (client: ReturnType<typeof createGithubClient>, as: { installationId?: string; repo?: string }, body: string) =>
  client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: 'octo-org', repo: 'hello', issue_number: 7, body }, as);

describe('createGithubClient, App mode', () => {
  it('signs an RS256 JWT (iat 60 s back, exp within 10 min, iss the app id), mints one installation token and reuses it', async () => {
    const client = createGithubClient({ apiBase: stand.url, app: { appId: APP_ID, privateKey: keys.privateKey } });
    const before = Math.floor(Date.now() / 1000);
    await comment(client, { installationId: String(INSTALLATION) }, 'one');
    await comment(client, { installationId: String(INSTALLATION) }, 'two');
    const after = Math.floor(Date.now() / 1000);

    expect(stand.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /app/installations/${INSTALLATION}/access_tokens`,
      'POST /repos/octo-org/hello/issues/7/comments',
      'POST /repos/octo-org/hello/issues/7/comments',
    ]);
    expect(stand.minted).toEqual(['ghs_standin1']);
    const [{ header, claims }] = stand.jwts;
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(String(claims.iss)).toBe(APP_ID);
    expect(claims.iat).toBeGreaterThanOrEqual(before - 61);
    expect(claims.iat).toBeLessThanOrEqual(after - 59);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(600);
    expect(claims.exp).toBeLessThanOrEqual(after + 600);
    expect(claims.exp).toBeGreaterThan(after);

    const [mint, first, second] = stand.requests;
    expect(mint.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
    for (const call of [first, second]) expect(call.headers.authorization).toBe('token ghs_standin1');
    for (const r of stand.requests) {
      expect(r.headers.accept).toBe('application/vnd.github+json');
      expect(r.headers['x-github-api-version']).toBe('2022-11-28');
      expect(r.headers['user-agent']).toMatch(/^hookwise/);
    }
    expect(second.body).toEqual({ body: 'two' });
  });

  it('mints a new token once the cached one is about to expire', async () => {
    let clock = Date.now();
    const client = createGithubClient({ apiBase: stand.url, app: { appId: APP_ID, privateKey: keys.privateKey }, now: () => clock });
    await comment(client, { installationId: String(INSTALLATION) }, 'a');
    clock += 54 * 60_000; // 6 minutes left: still used
    await comment(client, { installationId: String(INSTALLATION) }, 'b');
    expect(stand.minted).toEqual(['ghs_standin1']);
    clock += 2 * 60_000; // 4 minutes left: under the 5-minute margin
    await comment(client, { installationId: String(INSTALLATION) }, 'c');
    expect(stand.minted).toEqual(['ghs_standin1', 'ghs_standin2']);
    expect(stand.requests.filter((r) => r.path.endsWith('/comments')).map((r) => r.headers.authorization)).toEqual([
      'token ghs_standin1',
      'token ghs_standin1',
      'token ghs_standin2',
    ]);
  });

  it('looks the installation up for the repository with the app JWT when no id is given, once', async () => {
    const client = createGithubClient({ apiBase: `${stand.url}/`, app: { appId: APP_ID, privateKey: keys.privateKey } });
    await comment(client, { repo: 'octo-org/hello' }, 'a');
    await comment(client, { repo: 'octo-org/hello' }, 'b');
    expect(stand.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /repos/octo-org/hello/installation',
      `POST /app/installations/${INSTALLATION}/access_tokens`,
      'POST /repos/octo-org/hello/issues/7/comments',
      'POST /repos/octo-org/hello/issues/7/comments',
    ]);
    expect(stand.requests[0].headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('a token GitHub refuses is dropped (retryable), and the next call mints a new one', async () => {
    const client = createGithubClient({ apiBase: stand.url, app: { appId: APP_ID, privateKey: keys.privateKey } });
    await comment(client, { installationId: String(INSTALLATION) }, 'a');
    stand.failNext('POST', /\/comments$/, 401);
    await expect(comment(client, { installationId: String(INSTALLATION) }, 'b')).rejects.toMatchObject({ code: 'HW_E_DELIVERY', retryable: true });
    await comment(client, { installationId: String(INSTALLATION) }, 'b');
    expect(stand.minted).toEqual(['ghs_standin1', 'ghs_standin2']);
  });

  it('token mode sends the token as given, with the same headers', async () => {
    const client = createGithubClient({ apiBase: stand.url, token: 'ghp_plain' });
    expect(client.mode).toBe('token');
    await expect(comment(client, {}, 'x')).rejects.toMatchObject({ status: 401 });
    expect(stand.requests[0].headers.authorization).toBe('token ghp_plain');
    expect(stand.requests[0].headers.accept).toBe('application/vnd.github+json');
  });
});
