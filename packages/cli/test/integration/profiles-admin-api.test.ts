// `hookwise deliveries --profile` against a running gateway (the real binary and a real `gateway run`): the CLI finds
// the gateway through the config dir's own run file and names the profile on every admin API request, so each
// profile sees its own jobs; --all-profiles gets every profile's, each named. The store is memory: only the admin
// API can answer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, cli, makeHome, startGateway, stop } from '../deliveries-process';

jest.setTimeout(90_000);

let gateway: Gateway | undefined;
afterEach(async () => {
  if (gateway) await stop(gateway, 'SIGKILL');
  gateway = undefined;
});

const post = (url: string, path: string, deliveryId: string): Promise<Response> =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': deliveryId }, body: '{"n":1}' });

const ids = (stdout: string): string[] => (JSON.parse(stdout) as Array<{ deliveryId: string }>).map((job) => job.deliveryId);

describe('deliveries --profile through the admin API (real binary, real gateway)', () => {
  it("lists and shows only the chosen profile's jobs, and every profile's with --all-profiles", async () => {
    const home = makeHome('admin:\n  enabled: true\nstore:\n  backend: memory\n');
    mkdirSync(join(home, 'profiles', 'acme'), { recursive: true });
    writeFileSync(
      join(home, 'profiles', 'acme', 'config.yaml'),
      'platforms:\n  webhook:\n    extra:\n      routes:\n        ci:\n          secret: INSECURE_NO_AUTH\n          prompt: "acme {__raw__}"\n',
    );
    gateway = await startGateway(home);
    expect((await post(gateway.url, '/p/acme/webhooks/ci', 'acme-1')).status).toBe(202);
    expect((await post(gateway.url, '/webhooks/ci', 'own-1')).status).toBe(202);
    await gateway.waitFor(/delivered acme-1 on route/);
    await gateway.waitFor(/delivered own-1 on route/);

    const acme = await cli(home, ['deliveries', 'list', '--profile', 'acme', '--json']);
    expect(acme).toMatchObject({ code: 0 });
    expect(JSON.parse(acme.stdout)).toEqual([expect.objectContaining({ deliveryId: 'acme-1', profile: 'acme' })]);
    expect(ids((await cli(home, ['deliveries', 'list', '--json'])).stdout)).toEqual(['own-1']);

    const all = JSON.parse((await cli(home, ['deliveries', 'list', '--all-profiles', '--json'])).stdout) as Array<{ deliveryId: string; profile: string }>;
    expect(all.map((job) => `${job.profile}/${job.deliveryId}`).sort()).toEqual(['acme/acme-1', 'default/own-1']);

    const shown = await cli(home, ['deliveries', 'show', 'acme-1', '--profile', 'acme']);
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain('answer for acme');
    const elsewhere = await cli(home, ['deliveries', 'show', 'acme-1']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("no delivery 'acme-1' in the running gateway");
  });
});
