// Nothing secret leaves in an answer: an agent that was talked into printing a secret (a route's, a
// platform token, the admin token, WEBHOOK_SECRET, or a token of the gateway's own environment) must not post it
// where the route delivers. The answer is scrubbed after the run and before it is stored, so the stored answer,
// every destination and every retry see the scrubbed text; the scrubbing is the gateway's one exit for text
// (observe/outbound-scrub.ts).
import type { OutboundExit, OutboundScrubber } from '../observe/outbound-scrub';

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
  scrubber: OutboundScrubber | undefined,
  logger: { warn(message: string, meta?: Record<string, unknown>): unknown },
  where: { route: string; deliveryId: string },
  answer: string,
  usage: U | undefined,
  exit: OutboundExit,
): { text: string; usage: (U & { scrubbedSecrets?: number }) | undefined } {
  if (!scrubber) return { text: answer, usage };
  const { text, scrubbed } = scrubber.scrubCounted(exit, answer);
  if (!scrubbed) return { text, usage };
  logger.warn(`${scrubbedText(scrubbed)} from the agent's answer for ${where.deliveryId} on route '${where.route}' before storing and delivering it`, {
    route: where.route,
    delivery_id: where.deliveryId,
  });
  return { text, usage: { ...(usage ?? ({} as U)), scrubbedSecrets: scrubbed } };
}
