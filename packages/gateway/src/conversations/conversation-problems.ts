// What the config says about conversations that no check of its schema can: an allow_from entry that is the name
// of a GitHub or GitLab author association (MEMBER, OWNER, ...). Those sources give the association as
// `association:MEMBER`, apart from the author's login: a bare `MEMBER` would only ever match a user whose login
// is `MEMBER`, which is rarely what the entry meant and is a way in for whoever registers that login.
import type { Route } from '../routes/routes';

/** GitHub's author_association values (REST API, "author_association"), the names allow_from refuses bare. */
export const AUTHOR_ASSOCIATIONS = ['COLLABORATOR', 'CONTRIBUTOR', 'FIRST_TIMER', 'FIRST_TIME_CONTRIBUTOR', 'MANNEQUIN', 'MEMBER', 'NONE', 'OWNER'];

/** A bare association name in conversation.allow_from, with the entry to write instead. */
export function conversationProblems(route: Pick<Route, 'name' | 'conversation'>): string[] {
  return (route.conversation?.allow_from ?? [])
    .map(String)
    .filter((entry) => AUTHOR_ASSOCIATIONS.includes(entry.toUpperCase()))
    .map(
      (entry) =>
        `route '${route.name}': conversation.allow_from entry '${entry}' is an author association's name, which allow_from reads as a login (a user called ${entry} would pass); write 'association:${entry.toUpperCase()}' for everyone the code host marks ${entry.toUpperCase()}`,
    );
}
