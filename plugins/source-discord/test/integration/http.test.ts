// The over-HTTP conformance tests of @hookwise/testing for the Discord source: a real gateway whose route holds two
// application public keys, requests signed with Ed25519 private keys made here, and the PING handshake.
//
// Discord's delivery id is the interaction's `id`, in the body. bodyFor() does what Discord does for a new
// interaction: the example with an interaction id of its own (18 digits derived from the kit's delivery id). The same
// kit id (a replay) gives the same bytes, another id another interaction; expectedDeliveryId() applies the same rule.
import { createHash, generateKeyPairSync, sign as signEd25519, type KeyObject } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { ID, COMMAND } from '../payload-samples';

function keyPair(): { privateKey: KeyObject; hex: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, hex: Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex') };
}
const APP = keyPair();
const OLD_APP = keyPair();
const STRANGER = keyPair();

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
