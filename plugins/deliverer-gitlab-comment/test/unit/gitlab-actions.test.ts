// gitlab.note, the route action this plugin contributes, on its own: the merge request or issue it writes on, taken
// from GitLab's webhook payloads, and its check of a call. The note itself is posted end to end in
// plugins/agent-openai/test/integration/actions-review-note.e2e.test.ts.
import plugin, { gitlabNote, gitlabTargetOf } from '@hookwise/plugin-deliverer-gitlab-comment';

describe('the target of an event', () => {
  it.each([
    [
      { object_kind: 'merge_request', project: { id: 42 }, object_attributes: { iid: 7 } },
      { project: 42, kind: 'merge_request', iid: 7 },
    ],
    [
      { object_kind: 'issue', project: { id: 42 }, object_attributes: { iid: 3 } },
      { project: 42, kind: 'issue', iid: 3 },
    ],
    [
      { object_kind: 'note', project_id: 42, merge_request: { iid: 9 } },
      { project: 42, kind: 'merge_request', iid: 9 },
    ],
    [
      { object_kind: 'note', project: { id: 42 }, issue: { iid: 5 } },
      { project: 42, kind: 'issue', iid: 5 },
    ],
  ])('of %j is %j', (payload, target) => {
    expect(gitlabTargetOf(payload)).toEqual(target);
  });

  it('is refused, for good, for an event about no merge request or issue', () => {
    expect(() => gitlabTargetOf({ object_kind: 'push', project: { id: 42 } })).toThrow(/not about a GitLab merge request or issue/);
  });
});

describe('gitlab.note', () => {
  it('is contributed by gitlab_comment', () => {
    const deliverer = plugin.contributes.find((c) => c.kind === 'deliverer' && c.id === 'gitlab_comment') as { actions?: Array<{ name: string }> };
    expect(deliverer.actions?.map((a) => a.name)).toEqual(['gitlab.note']);
  });

  it('needs a non-empty body and keeps nothing else', () => {
    expect(gitlabNote.check!({ body: 'done', extra: true }, {})).toEqual({ ok: true, input: { body: 'done' } });
    expect(gitlabNote.check!({}, {})).toEqual({ ok: false, reason: 'gitlab.note needs a non-empty body' });
  });
});
