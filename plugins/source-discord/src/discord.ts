// Discord interactions endpoint: `X-Signature-Ed25519` (hex) over `X-Signature-Timestamp` + body, checked with the
// application's Ed25519 PUBLIC key (the route's secrets hold public keys here), and the PING handshake.
import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { type SourceRequest, type SourceVerdict, headerText } from '@hookwise/core';
import { missingHeader, timestampProblem, toleranceOption, cachedPublicKeys, publicKeyMatch, defineSource } from '@hookwise/kit/source';
import { discordPressAnswer, discordPressOf, discordSenderOf } from './discord-presses';
import { discordPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-signature-ed25519';
export const TIMESTAMP_HEADER = 'x-signature-timestamp';
/**
 * Discord documents no replay window: it does not retry an interaction, and an answer is due within three seconds.
 * Five minutes (the common window for signed timestamps) refuses old captured requests and leaves room for clock skew.
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Interaction types (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-type). */
export const INTERACTION_TYPES: Readonly<Record<number, string>> = {
  1: 'ping',
  2: 'application_command',
  3: 'message_component',
  4: 'application_command_autocomplete',
  5: 'modal_submit',
};

export interface DiscordSourceOptions {
  tolerance_seconds?: number;
}

const PUBLIC_KEY_HEX = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEX = /^[0-9a-fA-F]{128}$/;
// DER SubjectPublicKeyInfo header for an Ed25519 key (RFC 8410); the 32 raw key bytes follow it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The Ed25519 public key a route secret holds (64 hex digits, as the Developer Portal shows it), or undefined. */
export const ed25519PublicKey = cachedPublicKeys((secret) => {
  const hex = secret.trim();
  if (!PUBLIC_KEY_HEX.test(hex)) return undefined;
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
});

export function verifyDiscord(req: SourceRequest, secrets: readonly string[], toleranceSeconds = DEFAULT_TOLERANCE_SECONDS): SourceVerdict {
  const signature = headerText(req.headers, SIGNATURE_HEADER);
  if (signature === undefined) return missingHeader(SIGNATURE_HEADER);
  const timestamp = headerText(req.headers, TIMESTAMP_HEADER);
  if (timestamp === undefined) return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
  if (!SIGNATURE_HEX.test(signature)) return { ok: false, reason: `${SIGNATURE_HEADER} is not a 128-digit hex Ed25519 signature` };
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), req.rawBody]);
  const bytes = Buffer.from(signature, 'hex');
  const match = publicKeyMatch(secrets, ed25519PublicKey, (key) => verifySignature(null, signed, key, bytes), 'a 64-hex-digit Ed25519 public key');
  if (match.index < 0) return { ok: false, reason: 'reason' in match ? match.reason : 'no key verifies' };
  const index = match.index;
  const problem = timestampProblem(timestamp, req.receivedAt, toleranceSeconds);
  return problem ? { ok: false, reason: `${TIMESTAMP_HEADER}: ${problem}` } : { ok: true, secretIndex: index };
}

/** `application_command`, `message_component`, `application_command_autocomplete`, `modal_submit` (`interaction_<n>` for a type added later). */
export function discordEventType(payload: Record<string, unknown>): string | undefined {
  const type = payload.type;
  if (typeof type !== 'number' || !Number.isInteger(type)) return undefined;
  return INTERACTION_TYPES[type] ?? `interaction_${type}`;
}

/** The interaction's `id` (a snowflake): unique per interaction. */
export function discordDeliveryId(payload: Record<string, unknown>): string | undefined {
  const id = payload.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export const discordSource = defineSource<DiscordSourceOptions>({
  id: 'discord',
  payloadSchema: discordPayloadSchema,
  description: 'Discord interactions: X-Signature-Ed25519 over X-Signature-Timestamp + body with the application public key, PING answered',
  options: {
    tolerance_seconds: {
      ...toleranceOption(DEFAULT_TOLERANCE_SECONDS),
      description: `Replay window: requests whose X-Signature-Timestamp is further than this from now are refused (default ${DEFAULT_TOLERANCE_SECONDS} s; Discord documents none and never retries).`,
    },
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    return {
      headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER],
      verify: (req, secrets) => verifyDiscord(req, secrets, tolerance),
      eventType: (_req, payload) => discordEventType(payload),
      deliveryId: (_req, payload) => discordDeliveryId(payload),
      // PING (type 1), sent when the Interactions Endpoint URL is saved: answered PONG (type 1), as Discord requires.
      handshake: (_req, payload) => (payload.type === 1 ? { status: 200, body: { type: 1 } } : undefined),
      // Approvals: a press of a draft's button, answered with an ephemeral message to the presser.
      pressOf: discordPressOf,
      senderOf: discordSenderOf,
      pressAnswer: discordPressAnswer,
    };
  },
});
