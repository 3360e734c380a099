// Documented Discord interactions the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

// The APPLICATION_COMMAND example of https://discord.com/developers/docs/interactions/receiving-and-responding.
export const ID = '786008729715212338';

export const COMMAND = `{"type":2,"token":"A_UNIQUE_TOKEN","member":{"user":{"id":"53908232506183680","username":"Mason","avatar":"a_d5efa99b3eeaa7dd43acca82f5692432","discriminator":"1337","public_flags":131141},"roles":["539082325061836999"],"premium_since":null,"permissions":"2147483647","pending":false,"nick":null,"mute":false,"joined_at":"2017-03-13T19:19:14.040000+00:00","is_pending":false,"deaf":false},"id":"${ID}","guild_id":"290926798626357999","app_permissions":"442368","guild_locale":"en-US","locale":"en-US","data":{"options":[{"type":3,"name":"cardname","value":"The Gitrog Monster"}],"type":1,"name":"cardsearch","id":"771825006014889984"},"channel_id":"645027906669510667"}`;

const samples: PayloadSample[] = [{ name: 'APPLICATION_COMMAND', event: 'application_command', body: COMMAND }];
export default samples;
