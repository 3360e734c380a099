// The bare-group check of conversation.allow_from reads the groups from the route's source (Source.senderGroups):
// any source may declare its own, and the gateway knows none by itself.
import { conversationProblems } from '../../src/conversations/conversation-problems';

const route = (allow_from: Array<string | number>) => ({ name: 'chat', conversation: { enabled: true, allow_from } });

it("refuses a bare name of the source's groups, naming the entry to write", () => {
  const source = { senderGroups: { prefix: 'team', names: ['ADMINS', 'OPS'], what: 'a team' } };
  expect(conversationProblems(route(['admins', 'team:OPS', 'alice', 42]), source)).toEqual([
    "route 'chat': conversation.allow_from entry 'admins' is a team's name, which allow_from reads as a user id (a user called admins would pass); write 'team:ADMINS' for everyone the source marks ADMINS",
  ]);
});

it('knows no group of its own: a source without senderGroups, or no source, refuses nothing', () => {
  expect(conversationProblems(route(['MEMBER', 'OWNER']), {})).toEqual([]);
  expect(conversationProblems(route(['MEMBER']), undefined)).toEqual([]);
});
