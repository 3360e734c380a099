// `hookwise webhook test <name>`: sends a signed test event to the running gateway and prints its answer.
import { Args, Flags } from '@oclif/core';
import {
  readRunFile,
  readSubscriptions,
  routeDefaults,
  staticRoutes,
  subscriptionProblems,
  toRoute,
  type Route,
  type RouteConfig,
  type RouteDefaults,
} from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag } from '../../profile-choice';
import { buildTestEvent, parsePayloadFlag, samplePayload } from '../../test-event';
import { unresolvedInPayload, unresolvedText } from '../../unresolved-placeholders';
import { localBaseUrl, webhookUrl } from '../../webhook-url';
import { jobChannelFrom } from '../../job-channel-client';

const TIMEOUT_MS = 10_000;

export interface TestResult {
  url: string;
  event: string;
  status: number;
  body: unknown;
  /** The route prompt's placeholders that match nothing in the test payload. */
  unresolved_placeholders?: string[];
}

/** The prompt's unresolved placeholders over the test body, when the body is a JSON object (not a form). */
function unresolvedInTestEvent(prompt: string | undefined, body: string): string[] {
  try {
    const payload: unknown = JSON.parse(body);
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? unresolvedInPayload(prompt, payload as Record<string, unknown>) : [];
  } catch {
    return [];
  }
}

/** What the answer means for the user, beyond the status line. */
function hint(name: string, status: number, body: unknown): string | undefined {
  const state = (body as { status?: string } | null)?.status;
  if (status === 202) return "Accepted: the agent runs in the background; its answer goes to the route's deliver target (see the gateway log).";
  if (status === 200 && state === 'ignored' && (body as { reason?: string }).reason === 'filter')
    return "The payload failed the route's filter: the gateway log names the test that failed (docs/filters.md); pass a --payload that passes it.";
  if (status === 200 && state === 'ignored') return `The route's events filter ignored this event type: pass --event with one of its events.`;
  if (status === 404) return `The gateway does not know '${name}': is it running with the same config dir (HOOKWISE_HOME)?`;
  if (status === 401)
    return `The gateway rejected the signature: it holds another secret for '${name}' (was the subscription re-created with --secret, was .env changed after the gateway started, or is another gateway on this port?). Its log names the secret it checked against.`;
  if (status === 429) return "The route's rate limit is used up: wait a minute (see Retry-After).";
  return undefined;
}

export default class WebhookTest extends HookwiseCommand {
  static override description =
    'Send a signed test event to a route of the running gateway (a subscription or a static route) and print the status and body of the answer.';
  static override examples = [
    '<%= config.bin %> webhook test ci',
    `<%= config.bin %> webhook test pr-review --event pull_request --payload '{"action":"opened","pull_request":{"number":7,"title":"Fix"}}'`,
    '<%= config.bin %> webhook test pr-review --now',
  ];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Name of the subscription or route.', required: true }) };
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    payload: Flags.string({
      description: "JSON object to send (default: the route's sample payload, <config_dir>/samples/<route>.json, else a small test payload with event_type).",
    }),
    now: Flags.boolean({ description: "Run the test at once, not after the route's coalesce window (the gateway skips the window for this test only)." }),
    event: Flags.string({
      description: 'Event type to send (default: the payload\'s event_type if the route accepts it, else the route\'s first event, else "test").',
    }),
    url: Flags.string({
      description:
        "Base URL of the gateway (default: the running gateway's address from gateway.run.json in the config dir, else config.yaml's host and port).",
    }),
  };

  async run(): Promise<TestResult> {
    const { args, flags } = await this.parse(WebhookTest);
    const { name } = args;
    // Inside an agent run the test would sign with a route's secret (GitLab's header is the secret itself) and
    // could send it anywhere: refused, with or without --url.
    if (jobChannelFrom()) {
      const why = flags.url !== undefined ? "--url would send the route's signed request (and its secret) to any address" : "it signs with the route's secret";
      this.error(`webhook test is not available to an agent run (HOOKWISE_JOB_CHANNEL is set): ${why}; ask the operator to run it outside`, { exit: 1 });
    }
    let route: Route;
    let url: string;
    let event: ReturnType<typeof buildTestEvent>;
    let sample: ReturnType<typeof samplePayload>;
    try {
      const choice = this.readsConfigDir(flags);
      const { config, configDir } = loadChosen(choice);
      route = staticRoutes(config).get(name) ?? this.subscriptionRoute(configDir, name, routeDefaults(config));
      // The running gateway's own address first: it may have been started with --port or WEBHOOK_PORT (its run
      // file is in the config dir itself: one gateway serves every profile).
      url = webhookUrl(flags.url ?? readRunFile(choice.rootDir)?.url ?? localBaseUrl(config), name, choice.profile);
      sample = flags.payload === undefined ? samplePayload(configDir, name) : undefined;
      const payload = flags.payload === undefined ? sample?.payload : parsePayloadFlag(flags.payload);
      event = buildTestEvent(route, payload, flags.event, { now: flags.now });
    } catch (err) {
      this.fail(err);
    }

    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: event.headers, body: event.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      this.error(`No answer from ${url} (${cause}). Is the gateway running? (hookwise gateway run)`, { exit: 1 });
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: print as it came */
    }
    this.log(`POST ${url} (event ${event.event}${sample ? `, payload ${sample.file}` : ''}${flags.now ? ', now: no coalesce window' : ''})`);
    this.log(`HTTP ${response.status}`);
    this.log(typeof body === 'string' ? body : JSON.stringify(body, null, 2));
    const advice = hint(name, response.status, body);
    if (advice) this.log(advice);
    const unresolved = unresolvedInTestEvent(route.prompt, event.body);
    if (unresolved.length) this.log(`Placeholders: ${unresolvedText(unresolved)}`);
    const result: TestResult = {
      url,
      event: event.event,
      status: response.status,
      body,
      ...(unresolved.length ? { unresolved_placeholders: unresolved } : {}),
    };
    if (response.status >= 400) {
      if (this.jsonEnabled()) this.logJson(result);
      this.exit(1);
    }
    return result;
  }

  private subscriptionRoute(configDir: string, name: string, defaults: RouteDefaults): Route {
    const entries = readSubscriptions(configDir);
    if (!Object.hasOwn(entries, name)) {
      throw new Error(
        `no subscription or static route named '${name}' ${this.whereRead('').trim()}: see \`hookwise webhook list\`, or create it with \`hookwise webhook subscribe ${name}\``,
      );
    }
    const problems = subscriptionProblems(name, entries[name], defaults);
    if (problems.length) throw new Error(`the gateway skips this subscription: ${problems.join('; ')}`);
    return toRoute(name, entries[name] as RouteConfig, 'subscription', defaults);
  }
}
