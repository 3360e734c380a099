// What github_comment lends the gateway's route actions (issue 30): one REST call through its GitHub client, so
// that github.comment, github.add_labels and github.review act as the App the destination posts as (an
// installation token from the payload's installation id, else looked up for the repository). The gateway builds
// the paths and bodies; this only authenticates and turns GitHub's failures into retryable-or-not errors.
import type { ActionsApi } from '@hookwise/core';
import { githubFailure, type GithubClient } from './github-client';

export function githubActionsApi(client: GithubClient, name = 'github'): ActionsApi {
  return {
    host: 'github',
    async request(method, path, body, opts) {
      try {
        // Octokit sends `data` as the request body as it is (no parameter of it is taken into the URL).
        const answer = await client.request(`${method} ${path}`, body === undefined ? {} : { data: body }, opts);
        return answer.data;
      } catch (err) {
        throw githubFailure(err, `${method} ${path}`, name);
      }
    },
  };
}
