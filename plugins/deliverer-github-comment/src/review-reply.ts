// An answer in a pull request's review thread (deliver_extra.review_comment_id, which the conversation facet sets
// when a person replied in that thread): each part is a reply to the thread's top-level comment (CommentApi.reply),
// never sticky. Parts already posted for the delivery are not posted again when the job is retried.
import type { ProgressKV } from '@hookwise/core';
import { PROGRESS_TTL_MS } from '@hookwise/kit/platform';
import type { CommentApi } from './comment-api';

export interface ReviewReplies {
  api: CommentApi;
  progress: ProgressKV | undefined;
  /** The delivery's progress key (progressKey of the deliverer, route, delivery id and destination). */
  key: string;
  repo: string;
  number: number;
  commentId: string;
  bodies: string[];
  signal: AbortSignal;
}

/** Posts the parts not posted yet; answers the URLs of all of them. */
export async function deliverReviewReplies(r: ReviewReplies): Promise<string[]> {
  const urls = ((await r.progress?.get(r.key)) as { urls?: string[] } | undefined)?.urls?.slice() ?? [];
  for (let i = urls.length; i < r.bodies.length; i++) {
    const posted = await r.api.reply(r.repo, r.number, r.commentId, r.bodies[i], r.signal);
    urls.push(posted.url || posted.id);
    await r.progress?.set(r.key, { kind: 'review', urls }, PROGRESS_TTL_MS);
  }
  await r.progress?.delete(r.key);
  return urls.filter(Boolean);
}
