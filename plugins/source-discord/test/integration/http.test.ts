// The over-HTTP conformance tests of @hookwise/testing for the Discord source: a real gateway whose route holds two
// application public keys, requests signed with Ed25519 private keys made here, and the PING handshake.
//
// Discord's delivery id is the interaction's `id`, in the body. bodyFor() does what Discord does for a new
// interaction: the example with an interaction id of its own (18 digits derived from the kit's delivery id). The same
// kit id (a replay) gives the same bytes, another id another interaction; expectedDeliveryId() applies the same rule.
import { createHash, generateKeyPairSync, sign as signEd25519, type KeyObject } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';

function keyPair(): { privateKey: KeyObject; hex: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, hex: Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex') };
}
const APP = keyPair();
const OLD_APP = keyPair();
const STRANGER = keyPair();

// The APPLICATION_COMMAND example of https://discord.com/developers/docs/interactions/receiving-and-responding.
const ID = '786008729715212338';
const COMMAND = `{"type":2,"token":"A_UNIQUE_TOKEN","member":{"user":{"id":"53908232506183680","username":"Mason","avatar":"a_d5efa99b3eeaa7dd43acca82f5692432","discriminator":"1337","public_flags":131141},"roles":["539082325061836999"],"premium_since":null,"permissions":"2147483647","pending":false,"nick":null,"mute":false,"joined_at":"2017-03-13T19:19:14.040000+00:00","is_pending":false,"deaf":false},"id":"${ID}","guild_id":"290926798626357999","app_permissions":"442368","guild_locale":"en-US","locale":"en-US","data":{"options":[{"type":3,"name":"cardname","value":"The Gitrog Monster"}],"type":1,"name":"cardsearch","id":"771825006014889984"},"channel_id":"645027906669510667"}`;
// A PING (type 1), with the fields Discord sends along; its ids are made up.
const PING =
  '{"app_permissions":"562949953601536","application_id":"1265289281451069440","entitlements":[],"id":"1265298362534363176","token":"A_UNIQUE_TOKEN","type":1,"user":{"id":"53908232506183680","username":"Mason"},"version":1}';

/** An 18-digit interaction id per kit delivery id. */
const interactionIdFor = (deliveryId: string) =>
  (BigInt(`0x${createHash('sha256').update(deliveryId).digest('hex').slice(0, 16)}`) % 10n ** 18n).toString().padStart(18, '0');

describeSourceOverHttp('discord', {
  source: 'discord',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: [APP.hex, OLD_APP.hex],
  body: COMMAND,
  event: 'application_command',
  bodyFor: ({ deliveryId }) => COMMAND.replace(`"id":"${ID}"`, `"id":"${interactionIdFor(deliveryId)}"`),
  staleSeconds: 900,
  expectedDeliveryId: interactionIdFor,
  sign: ({ body, key, timestamp }) => {
    const pair = key === 'wrong' ? STRANGER : key === 0 ? APP : OLD_APP;
    const signature = signEd25519(null, Buffer.concat([Buffer.from(String(timestamp)), body]), pair.privateKey).toString('hex');
    return { 'X-Signature-Ed25519': signature, 'X-Signature-Timestamp': String(timestamp) };
  },
  handshakes: [{ name: 'PING', body: PING, expect: { status: 200, contentType: /application\/json/, body: { type: 1 } } }],
});
