// The Mattermost reply reader (issue 31, Source.replyOf) on the outgoing-webhook example of Mattermost's
// documentation (fixtures/outgoing.json and .form, Mattermost's OutgoingWebhookPayload fields): a channel message
// answers the channel's latest answer (no post id: outgoing webhooks name none), the author by user id or
// username, the post itself as `own`, and the bot account's posts (ignore_users) answering nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { mattermostReplyOf, mattermostSenderOf, mattermostSource, parseMattermostBody } from '../../src';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name));
const parsed = (name: string, contentType: string) =>
  parseMattermostBody({
    headers: { 'content-type': contentType },
    rawBody: fixture(name),
    url: 'http://localhost/webhooks/mm',
    receivedAt: 0,
  } as SourceRequest)!;

const EXPECTED = {
  to: { platform: 'mattermost', chat: 'hawos4dqtby53pd64o4a4cmeoo', messageId: '' },
  userId: 'rnina9994bde8mua79zqcg5hmo',
  alsoAllowedAs: ['somename'],
  own: { platform: 'mattermost', chat: 'hawos4dqtby53pd64o4a4cmeoo', messageId: 'axdygg1957njfe5pu38saikdho' },
  from: 'Mattermost user @somename (rnina9994bde8mua79zqcg5hmo)',
  text: 'some text here',
};

describe('mattermostReplyOf', () => {
  it.each([
    ['JSON', 'outgoing.json', 'application/json'],
    ['form', 'outgoing.form', 'application/x-www-form-urlencoded'],
  ])('reads the %s body: the channel (latest answer), user id and username, the post as its own', (_kind, name, type) => {
    expect(mattermostReplyOf(parsed(name, type))).toEqual(EXPECTED);
  });

  it("answers nothing for the bot account's posts, named by user id or username, nor without a channel or user", () => {
    const payload = parsed('outgoing.json', 'application/json');
    expect(mattermostReplyOf(payload, { ignore_users: ['rnina9994bde8mua79zqcg5hmo'] })).toBeUndefined();
    expect(mattermostReplyOf(payload, { ignore_users: ['somename'] })).toBeUndefined();
    expect(mattermostReplyOf(payload, { ignore_users: ['someone-else'] })).toEqual(EXPECTED);
    expect(mattermostReplyOf({ ...payload, channel_id: '' })).toBeUndefined();
    expect(mattermostReplyOf({ ...payload, user_id: undefined })).toBeUndefined();
  });
});

describe('the mattermost source', () => {
  it('offers its reply reader with the route options, ignore_users defaulting to none', () => {
    const payload = parsed('outgoing.json', 'application/json');
    expect(mattermostSource.create().replyOf?.(payload)).toEqual(EXPECTED);
    expect(mattermostSource.create({ ignore_users: ['somename'] }).replyOf?.(payload)).toBeUndefined();
    expect(mattermostSource.optionsSchema.properties).toHaveProperty('ignore_users');
  });
});

describe('mattermost senders', () => {
  const post = JSON.parse(fixture('outgoing.json').toString('utf8')) as Record<string, unknown>;

  it("names the post's user_id, allowed by the user_name too", () => {
    expect(mattermostSenderOf(post)).toEqual({
      id: 'rnina9994bde8mua79zqcg5hmo',
      from: 'Mattermost user @somename (rnina9994bde8mua79zqcg5hmo)',
      alsoAllowedAs: ['somename'],
    });
    expect(mattermostSource.create().senderOf?.(post)?.id).toBe('rnina9994bde8mua79zqcg5hmo');
  });

  it("names nobody for the bot account's own posts (ignore_users) or a body without user_id", () => {
    expect(mattermostSenderOf(post, { ignore_users: ['somename'] })).toBeUndefined();
    expect(mattermostSource.create({ ignore_users: ['rnina9994bde8mua79zqcg5hmo'] }).senderOf?.(post)).toBeUndefined();
    expect(mattermostSenderOf({ ...post, user_id: '' })).toBeUndefined();
  });
});
