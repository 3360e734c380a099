// The route actions' policy (issue 30): what a route's `actions:` offers as tools and how each call is checked:
// allowed labels, verdicts and destinations, calls per run, an action the route does not list, malformed input.
// The code-host actions are the ones the github_comment and gitlab_comment plugins contribute, registered as the
// hookwise CLI registers them; the gateway's policy knows them only through the catalogue.
import githubComment from '@hookwise/plugin-deliverer-github-comment';
import gitlabComment from '@hookwise/plugin-deliverer-gitlab-comment';
import { ActionCatalogue } from '../../../src/actions/action-catalogue';
import { actionTools as toolsOf, checkCall as check } from '../../../src/actions/action-policy';
import type { ActionsConfig } from '../../../src/config/actions-schema';
import { PluginRegistry } from '../../../src/plugins/registry';

const catalogue = ActionCatalogue.fromRegistry(
  new PluginRegistry([
    { plugin: githubComment, source: '@hookwise/plugin-deliverer-github-comment', options: {} },
    { plugin: gitlabComment, source: '@hookwise/plugin-deliverer-gitlab-comment', options: {} },
  ]),
);
const actionTools = (actions: ActionsConfig | undefined) => toolsOf(catalogue, actions);
const checkCall = (actions: ActionsConfig | undefined, name: string, args: unknown, used: number) => check(catalogue, actions, name, args, used);

const route: ActionsConfig = {
  'github.add_labels': { allow: ['bug', 'needs-triage'], max: 2 },
  'github.comment': {},
  'github.review': { events: ['COMMENT', 'REQUEST_CHANGES'] },
  'gitlab.note': { max: 1 },
  message: { to: ['slack', 'oncall'] },
};

const refusal = (name: string, args: unknown, used = 0): string => {
  const verdict = checkCall(route, name, args, used);
  if (verdict.ok) throw new Error(`${name} was accepted: ${JSON.stringify(verdict.call)}`);
  return verdict.reason;
};

describe('tools offered', () => {
  it('are exactly the route actions, in a fixed order, with their limits in the schema and description', () => {
    const tools = actionTools(route);
    expect(tools.map((t) => t.name)).toEqual(['github.comment', 'github.add_labels', 'github.review', 'gitlab.note', 'message']);
    const labels = tools.find((t) => t.name === 'github.add_labels')!;
    expect(labels.inputSchema).toMatchObject({ properties: { labels: { items: { enum: ['bug', 'needs-triage'] } } } });
    expect(labels.description).toContain('At most 2 call(s) per event (all runs of this job together).');
    expect(tools.find((t) => t.name === 'message')!.inputSchema).toMatchObject({ properties: { to: { enum: ['slack', 'oncall'] } } });
    expect(tools.find((t) => t.name === 'github.review')!.inputSchema).toMatchObject({ properties: { event: { enum: ['COMMENT', 'REQUEST_CHANGES'] } } });
  });

  it('are none for a route without actions', () => {
    expect(actionTools(undefined)).toEqual([]);
    expect(actionTools({})).toEqual([]);
  });
});

describe('allowed values', () => {
  it('accepts allowed labels, once each, and refuses the others by name', () => {
    expect(checkCall(route, 'github.add_labels', { labels: ['bug', 'bug', 'needs-triage'] }, 0)).toEqual({
      ok: true,
      call: { action: 'github.add_labels', input: { labels: ['bug', 'needs-triage'] } },
    });
    expect(refusal('github.add_labels', { labels: ['bug', 'wontfix'] })).toBe('label(s) not allowed on this route: wontfix; allowed: bug, needs-triage');
  });

  it('takes any label when the route lists none', () => {
    expect(checkCall({ 'github.add_labels': {} }, 'github.add_labels', { labels: ['anything'] }, 0).ok).toBe(true);
  });

  it('accepts the allowed verdicts (COMMENT by default) and refuses APPROVE', () => {
    const review = { body: 'Looks fine', comments: [{ path: 'src/a.ts', line: 3, body: 'nit' }] };
    expect(checkCall(route, 'github.review', review, 0)).toEqual({ ok: true, call: { action: 'github.review', input: { ...review, event: 'COMMENT' } } });
    expect(checkCall(route, 'github.review', { ...review, event: 'REQUEST_CHANGES' }, 0).ok).toBe(true);
    expect(refusal('github.review', { ...review, event: 'APPROVE' })).toBe(
      "review verdict 'APPROVE' is not allowed on this route; allowed: COMMENT, REQUEST_CHANGES",
    );
  });

  it('only COMMENT on a route whose review lists no verdicts', () => {
    const verdict = checkCall({ 'github.review': {} }, 'github.review', { body: 'x', event: 'REQUEST_CHANGES' }, 0);
    expect(verdict).toEqual({ ok: false, reason: "review verdict 'REQUEST_CHANGES' is not allowed on this route; allowed: COMMENT" });
  });
});

describe('destinations', () => {
  it('accepts a listed destination and refuses any other, naming the allowed ones', () => {
    expect(checkCall(route, 'message', { to: 'oncall', text: 'disk full', extra: 'dropped' }, 0)).toEqual({
      ok: true,
      call: { action: 'message', input: { to: 'oncall', text: 'disk full' } },
    });
    expect(refusal('message', { to: 'telegram', text: 'hi' })).toBe("destination 'telegram' is not allowed for messages on this route; allowed: slack, oncall");
    expect(refusal('message', { text: 'hi' })).toBe("destination 'undefined' is not allowed for messages on this route; allowed: slack, oncall");
  });
});

describe('max per event', () => {
  it('counts accepted calls: the call after the limit is refused', () => {
    expect(checkCall(route, 'github.add_labels', { labels: ['bug'] }, 1).ok).toBe(true);
    expect(refusal('github.add_labels', { labels: ['bug'] }, 2)).toBe(
      "'github.add_labels' may be called at most 2 time(s) per event, and this event's runs have used them",
    );
    expect(checkCall(route, 'gitlab.note', { body: 'first' }, 0)).toEqual({ ok: true, call: { action: 'gitlab.note', input: { body: 'first' } } });
    expect(refusal('gitlab.note', { body: 'second' }, 1)).toContain('at most 1 time(s)');
  });

  it('has no limit when max is not set', () => {
    expect(checkCall(route, 'github.comment', { body: 'again' }, 500).ok).toBe(true);
  });
});

describe('unknown action', () => {
  it('refuses an action the route does not list, or no route actions at all, naming what is allowed', () => {
    expect(refusal('subscribe', { name: 'x' })).toBe(
      "'subscribe' is not an action this route allows; allowed: github.comment, github.add_labels, github.review, gitlab.note, message",
    );
    expect(refusal('shell.exec', { command: 'rm -rf /' })).toContain("'shell.exec' is not an action this route allows");
    expect(checkCall(undefined, 'github.comment', { body: 'x' }, 0)).toEqual({
      ok: false,
      reason: "'github.comment' is not an action this route allows; allowed: none",
    });
  });
});

describe('malformed input', () => {
  it.each([
    ['github.comment', { body: '   ' }, 'github.comment needs a non-empty body'],
    ['github.comment', 'just a string', 'github.comment needs a non-empty body'],
    ['github.comment', null, 'github.comment needs a non-empty body'],
    ['github.add_labels', { labels: 'bug' }, 'github.add_labels needs labels: a non-empty list of label names'],
    ['github.add_labels', { labels: [] }, 'github.add_labels needs labels: a non-empty list of label names'],
    ['github.add_labels', { labels: ['bug', 7] }, 'github.add_labels needs labels: a non-empty list of label names'],
    ['github.review', { comments: [] }, 'github.review needs a non-empty body'],
    ['github.review', { body: 'x', comments: 'all good' }, 'github.review comments must be a list of {path, line, body}'],
    [
      'github.review',
      { body: 'x', comments: [{ path: 'a.ts', line: 0, body: 'y' }] },
      'github.review comment 1 needs path (a file), line (a positive whole number) and body',
    ],
    [
      'github.review',
      {
        body: 'x',
        comments: [
          { path: 'a.ts', line: 2, body: 'ok' },
          { path: '', line: 2, body: 'y' },
        ],
      },
      'github.review comment 2 needs path',
    ],
    ['github.review', { body: 'x', comments: [{ path: 'a.ts', line: 1.5, body: 'y' }] }, 'github.review comment 1 needs path'],
    ['gitlab.note', {}, 'gitlab.note needs a non-empty body'],
    ['message', { to: 'slack', text: '' }, 'message needs a non-empty text'],
    ['message', { to: ['slack'], text: 'x' }, "destination 'slack' is not allowed"],
  ])('%s with %j is refused', (name, args, reason) => {
    expect(refusal(name, args)).toContain(reason);
  });

  it('a refused call does not count against max (the caller counts accepted ones only)', () => {
    // The run passes `used` = accepted calls; a malformed call before the limit is refused for its input, not the limit.
    expect(refusal('gitlab.note', { body: '' }, 0)).toBe('gitlab.note needs a non-empty body');
  });
});
