// `hookwise routes run <route>`: one event of a route now, on the running gateway (its admin API), as a tick of the
// route's schedule would be: event type `schedule`, the schedule's payload (or --payload's file) plus scheduled_at,
// through the route's filter and the gateway's own store, so it shows in `deliveries` and the dashboard.
import { readFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { adminApiEnabled, readRunFile } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag, profileName } from '../../profile-choice';
import { parsePayloadFlag } from '../../test-event';

const TIMEOUT_MS = 30_000;

export interface RunResult {
  route: string;
  status: number;
  body: Record<string, unknown>;
}

export default class RoutesRun extends HookwiseCommand {
  static override description =
    "Run a route now on the running gateway, as a tick of its schedule would: one event of type schedule with the schedule's payload (or --payload's) and scheduled_at, through the route's filter, agent, budgets and delivery. Needs the gateway's admin API (admin.enabled: true).";
  static override examples = ['<%= config.bin %> routes run standup', '<%= config.bin %> routes run standup --payload standup-monday.json'];
  static override enableJsonFlag = true;
  static override args = { route: Args.string({ description: 'The route to run (static or subscription).', required: true }) };
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    payload: Flags.string({ description: "A file holding the event's payload, a JSON object (default: the route's schedule.payload, else {})." }),
  };

  async run(): Promise<RunResult> {
    const { args, flags } = await this.parse(RoutesRun);
    let url: string;
    let token: string | undefined;
    let payload: Record<string, unknown> | undefined;
    try {
      const choice = this.readsConfigDir(flags);
      const { config } = loadChosen(choice);
      if (flags.payload !== undefined) payload = parsePayloadFlag(readFileSync(flags.payload, 'utf8'));
      if (!adminApiEnabled(config)) {
        throw new Error(
          'routes run fires the route on the running gateway through its admin API, which is off: set admin.enabled: true in config.yaml and restart the gateway',
        );
      }
      // The run file is the whole gateway's (it serves every profile): in the config dir itself.
      const running = readRunFile(choice.rootDir);
      if (!running) throw new Error('no running gateway for this config dir (no gateway.run.json): start it with `hookwise gateway run`');
      url = `${running.url}/api/routes/${encodeURIComponent(args.route)}/run?profile=${encodeURIComponent(profileName(choice))}`;
      token = config.admin?.token;
    } catch (err) {
      this.fail(err, true);
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    // Without a token (loopback mode) an action carries the CSRF header, which no other site's page can send.
    if (token) headers.authorization = `Bearer ${token}`;
    else headers['x-hookwise-csrf'] = 'hookwise-cli';
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload === undefined ? {} : { payload }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      this.error(`No answer from ${url} (${cause}). Is the gateway running? (hookwise gateway run)`, { exit: 1 });
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    const result: RunResult = { route: args.route, status: response.status, body };
    if (response.status >= 400) {
      if (this.jsonEnabled()) this.logJson(result);
      this.error(`the gateway answered ${response.status}: ${String(body.error ?? body.status ?? response.statusText)}`, { exit: 1 });
    }
    if (!this.jsonEnabled()) {
      const state = String(body.status);
      if (state === 'accepted')
        this.log(`Route '${args.route}' runs now (delivery ${String(body.delivery_id)}): see \`hookwise deliveries show ${String(body.delivery_id)}\``);
      else if (state === 'ignored')
        this.log(`The event failed the route's filter (delivery ${String(body.delivery_id)}): the gateway log names the test that failed`);
      else this.log(`${state} (delivery ${String(body.delivery_id)})`);
    }
    return result;
  }
}
