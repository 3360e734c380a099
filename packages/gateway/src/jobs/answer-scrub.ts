// Nothing secret leaves in an answer: an agent that was talked into printing a secret (a route's, a
// platform token, the admin token, WEBHOOK_SECRET, or a token of the gateway's own environment) must not post it
// where the route delivers. The answer is scrubbed after the run and before it is stored, so the stored answer,
// every destination and every retry see the scrubbed text, in every encoding core's redactor knows.
import { REDACTED, SecretScrubber } from '@hookwise/core';

/**
 * Variable names that hold credentials by convention (GH_TOKEN, ANTHROPIC_API_KEY, WEBHOOK_SECRET, ...): the
 * same convention the kit uses to keep them out of child processes. The gateway does not depend on the kit.
 */
const CREDENTIAL_NAME = /(^|_)(SECRET|SECRETS|TOKEN|PASSWORD|PASSWD|PASS|API_KEY|APIKEY|PRIVATE_KEY|CREDENTIALS?|AUTH|KEY)(_|$)/i;
/**
 * Environment values shorter than this are not taken as secrets (flags such as AUTH=1 or GIT_TERMINAL_PROMPT
 * style values would blank every "1" and "true" in answers); registered secrets are scrubbed at any length.
 */
const MIN_ENV_SECRET = 8;

/** The values of credential-named variables in `env` (the gateway's environment with its .env). */
export function environmentSecrets(env: NodeJS.ProcessEnv, extraNames: readonly string[] = []): string[] {
  const names = new Set(extraNames);
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_ENV_SECRET) continue;
    if (names.has(name) || CREDENTIAL_NAME.test(name)) out.push(value);
  }
  return out;
}

/** A scrubbed answer and how many secrets were taken out of it (occurrences, any encoding). */
export interface ScrubbedAnswer {
  text: string;
  scrubbed: number;
}

function countOf(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

/**
 * Scrubs answers with the gateway's live redactor (every secret registered so far: routes, subscriptions as they
 * are read, platform tokens plugins register, the admin token) and the tokens of the gateway's environment.
 */
export class AnswerScrubber {
  private readonly environment: SecretScrubber;

  constructor(
    private readonly registered: Pick<SecretScrubber, 'scrub'>,
    env: NodeJS.ProcessEnv = process.env,
    /** Further variable names whose values are secrets whatever their name (a runner's `api_key_env`). */
    names: readonly string[] = [],
  ) {
    this.environment = new SecretScrubber(environmentSecrets(env, names));
  }

  scrub(answer: string): ScrubbedAnswer {
    const text = this.environment.scrub(this.registered.scrub(answer));
    // A marker the agent wrote itself is not counted: only the ones this scrub put in.
    return { text, scrubbed: Math.max(0, countOf(text, REDACTED) - countOf(answer, REDACTED)) };
  }
}

/** The run fact people read ("answer scrubbed: 2 secrets"); undefined when nothing was scrubbed. */
export function scrubbedText(scrubbed: number | undefined): string | undefined {
  if (!scrubbed) return undefined;
  return `answer scrubbed: ${scrubbed} secret${scrubbed === 1 ? '' : 's'}`;
}

/**
 * The worker's step: scrubs a run's answer (no scrubber: as it is), logs how many secrets went (never which),
 * and gives the usage to store with it, which carries the count for `deliveries show` and the dashboard.
 */
export function scrubRunAnswer<U extends object>(
  scrubber: AnswerScrubber | undefined,
  logger: { warn(message: string, meta?: Record<string, unknown>): unknown },
  where: { route: string; deliveryId: string },
  answer: string,
  usage: U | undefined,
): { text: string; usage: (U & { scrubbedSecrets?: number }) | undefined } {
  if (!scrubber) return { text: answer, usage };
  const { text, scrubbed } = scrubber.scrub(answer);
  if (!scrubbed) return { text, usage };
  logger.warn(`${scrubbedText(scrubbed)} from the agent's answer for ${where.deliveryId} on route '${where.route}' before storing and delivering it`, {
    route: where.route,
    delivery_id: where.deliveryId,
  });
  return { text, usage: { ...(usage ?? ({} as U)), scrubbedSecrets: scrubbed } };
}
