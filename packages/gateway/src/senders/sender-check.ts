// Who may start an agent run on a chat route. A route whose source can name the sender of a message
// (Source.senderOf: Telegram, Slack, Discord, Matrix, WhatsApp, SMS, ...) is a door anyone who finds the bot can
// knock on; `allow_from` lists the people it opens for. On the request path, after the gateway's own messages and
// the replies to its conversations are taken, an event of anyone else is ignored as a filtered one (200, reason
// `not_allowed`, logged); at startup a chat route without `allow_from` is refused, and `allow_from: ["*"]` (anyone)
// is said in a warning.
import type { Source } from '@hookwise/core';
import type { Logger } from 'winston';
import type { IngestHook } from '../ingest/ingest-hooks';
import type { Route } from '../routes/routes';

/** Anyone: the route answers everyone who can message it. */
export const ANYONE = '*';

/** The ingest hook: an event whose sender is not in the route's allow_from is filtered (`not_allowed`). */
export function senderCheck(): IngestHook {
  return {
    name: 'senders',
    event({ route, source, payload }) {
      const allow = route.allowFrom;
      const named = source?.source;
      if (allow === undefined && named?.senderOf === undefined) return undefined;
      if (allow?.includes(ANYONE)) return undefined;
      const sender = named?.senderOf?.(payload);
      const names = sender === undefined ? [] : [sender.id, ...(sender.alsoAllowedAs ?? [])];
      if (allow !== undefined && names.some((name) => allow.includes(name))) return undefined;
      // A route that skipped the startup check (a subscription) is closed rather than open to anyone.
      const reason =
        allow === undefined
          ? `the route has no allow_from, and its ${source!.id} source names who wrote it: nobody may start a run until allow_from lists them`
          : sender === undefined
            ? 'the event names no sender that allow_from could allow'
            : `${sender.from ?? `user ${sender.id}`} is not in allow_from (user id ${sender.id})`;
      return { filtered: { passed: false, reason, by: 'not_allowed' } };
    },
  };
}

/**
 * A route's allow_from against its source, once the source is created (startup): a chat source needs allow_from,
 * and allow_from needs a source that can name a sender. `allow_from: ["*"]` on a chat source is logged as a warning.
 */
export function senderProblems(route: Pick<Route, 'name' | 'source' | 'allowFrom'>, source: Source | undefined, logger?: Logger): string[] {
  const where = `route '${route.name}'`;
  const chat = source?.senderOf !== undefined;
  if (route.allowFrom === undefined) {
    if (!chat) return [];
    return [
      `${where}: its ${route.source} source lets anyone who can message the bot start an agent run; list who may in allow_from (their ${route.source} user ids, e.g. allow_from: [123456789]), or write allow_from: ["*"] to answer everyone`,
    ];
  }
  if (!chat) {
    return [
      `${where}: allow_from needs a source that names who wrote a message (telegram, slack, discord, matrix, whatsapp, twilio, ...); ${route.source === undefined ? 'the route pins no source' : `the ${route.source} source names none`}: remove allow_from (a filter: can test the payload's fields)`,
    ];
  }
  if (route.allowFrom.includes(ANYONE)) {
    logger?.warn(`${where}: allow_from: ["*"] lets anyone who can message the bot start an agent run on this route; list user ids to limit it`);
  }
  return [];
}
