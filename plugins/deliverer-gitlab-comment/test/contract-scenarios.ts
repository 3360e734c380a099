// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in that answers as
// GitLab's Notes API documents: 201 with the created note, 502 while GitLab is down, 404 for an unknown project.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { createGitlabCommentDeliverer } from '../src';

const TOKEN = 'glpat-contract-token-0123456789';

export default delivererContractCase(
  'gitlab_comment',
  ({ server, test }) => createGitlabCommentDeliverer({ token: TOKEN, api_base: server.url, timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    extra: { project: 'group/project', merge_request_iid: '7' },
    api: (req, scenario) =>
      req.path === '/api/v4/user'
        ? { status: 200, json: { id: 1, username: 'project_1_bot' } }
        : scenario === 'deliver'
          ? { status: 201, json: { id: 302, body: (req.json as { body?: string } | undefined)?.body, noteable_type: 'MergeRequest', noteable_iid: 7 } }
          : scenario === 'retryable'
            ? { status: 502, body: '502 Bad Gateway', headers: { 'retry-after': '3' } }
            : { status: 404, json: { message: '404 Project Not Found' } },
    verifyDelivered: ({ server }, receipt) => {
      const notes = server.requests.filter((r) => r.path !== '/api/v4/user');
      expect(notes.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /api/v4/projects/group%2Fproject/merge_requests/7/notes']);
      expect(notes[0].headers['private-token']).toBe(TOKEN);
      expect(receipt).toEqual({ target: 'group/project!7', ids: ['302'] });
    },
  },
);
