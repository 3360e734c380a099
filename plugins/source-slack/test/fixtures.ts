// Documented Slack request bodies shared by the unit and integration tests (exact bytes as Slack posts them).

/** docs.slack.dev/reference/events/app_mention, "Standard app mention when your app is already in channel" (the docs' trailing commas removed). */
export const APP_MENTION = JSON.stringify({
  token: 'ZZZZZZWSxiZZZ2yIvs3peJ',
  team_id: 'T123ABC456',
  api_app_id: 'A123ABC456',
  event: {
    type: 'app_mention',
    user: 'U123ABC456',
    text: 'What is the hour of the pearl, <@U0LAN0Z89>?',
    ts: '1515449522.000016',
    channel: 'C123ABC456',
    event_ts: '1515449522000016',
  },
  type: 'event_callback',
  event_id: 'Ev123ABC456',
  event_time: 1515449522000016,
  authorizations: [{ team_id: 'T123ABC456', user_id: 'U123ABC456', is_bot: false, is_enterprise_install: false }],
});

/** docs.slack.dev/reference/events/url_verification: the challenge Slack posts to a new Request URL. */
export const URL_VERIFICATION = JSON.stringify({
  token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
  challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
  type: 'url_verification',
});

/** docs.slack.dev/reference/interaction-payloads/block_actions-payload: the example payload (its elided message fields left out). */
export const BLOCK_ACTIONS = {
  type: 'block_actions',
  team: { id: 'T9TK3CUKW', domain: 'example' },
  user: { id: 'UA8RXUSPL', username: 'jtorrance', team_id: 'T9TK3CUKW' },
  api_app_id: 'AABA1ABCD',
  token: '9s8d9as89d8as9d8as989',
  container: {
    type: 'message_attachment',
    message_ts: '1548261231.000200',
    attachment_id: 1,
    channel_id: 'CBR2V3XEX',
    is_ephemeral: false,
    is_app_unfurl: false,
  },
  trigger_id: '12321423423.333649436676.d8c1bb837935619ccad0f624c448ffb3',
  channel: { id: 'CBR2V3XEX', name: 'review-updates' },
  message: { bot_id: 'BAH5CA16Z', type: 'message', text: "This content can't be displayed.", user: 'UAJ2RU415', ts: '1548261231.000200' },
  response_url: 'https://hooks.slack.com/actions/AABA1ABCD/1232321423432/D09sSasdasdAS9091209',
  actions: [
    {
      action_id: 'WaXA',
      block_id: '=qXel',
      text: { type: 'plain_text', text: 'View', emoji: true },
      value: 'click_me_123',
      type: 'button',
      action_ts: '1548426417.840180',
    },
  ],
};
/** Interactivity arrives form-encoded: a single `payload` field holding the JSON. */
export const BLOCK_ACTIONS_FORM = new URLSearchParams({ payload: JSON.stringify(BLOCK_ACTIONS) }).toString();

/**
 * api.slack.com/authentication/verifying-requests-from-slack, the step-by-step walk-through: a slash command body,
 * its timestamp, the example signing secret and the signature Slack computed.
 */
export const DOCUMENTED_SIGNING_EXAMPLE = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: '1531420618',
  body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};
