// What the config says about conversations that no check of its schema can: an allow_from entry that is the bare
// name of a group the route's source names authors by (GitHub's author associations: MEMBER, OWNER, ...). The source
// gives the group as `<prefix>:<NAME>` (`association:MEMBER`), apart from the author's login: a bare `MEMBER` would
// only ever match a user whose login is `MEMBER`, which is rarely what the entry meant and is a way in for whoever
// registers that login. The groups are the source's to know (Source.senderGroups), not the gateway's.
import type { Source } from '@hookwise/core';
import type { Route } from '../routes/routes';

/** A bare group name in conversation.allow_from, with the entry to write instead. */
export function conversationProblems(route: Pick<Route, 'name' | 'conversation'>, source: Pick<Source, 'senderGroups'> | undefined): string[] {
  const groups = source?.senderGroups;
  if (!groups) return [];
  return (route.conversation?.allow_from ?? [])
    .map(String)
    .filter((entry) => groups.names.includes(entry.toUpperCase()))
    .map(
      (entry) =>
        `route '${route.name}': conversation.allow_from entry '${entry}' is ${groups.what}'s name, which allow_from reads as a user id (a user called ${entry} would pass); write '${groups.prefix}:${entry.toUpperCase()}' for everyone the source marks ${entry.toUpperCase()}`,
    );
}
