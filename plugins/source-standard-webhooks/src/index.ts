// Standard Webhooks (Svix and every sender built on the spec): `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
import { definePlugin, headerValue, type PluginPackageJson, type Source, type SourceContribution, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, timestampProblem, toleranceOption, verdictForSecrets } from '@hookwise/kit';

export const SIGNATURE_HEADER = 'webhook-signature';
export const ID_HEADER = 'webhook-id';
export const TIMESTAMP_HEADER = 'webhook-timestamp';
/** Svix sends the same scheme under its own names by default (Clerk, Resend, ...); the spec's names come first. */
export const SVIX_HEADERS = { signature: 'svix-signature', id: 'svix-id', timestamp: 'svix-timestamp' } as const;
export const SECRET_PREFIX = 'whsec_';
/** The spec's suggested replay window, and the default of its reference libraries. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * How a route secret becomes the HMAC key. `auto`: `whsec_<base64>` is decoded; a secret without the prefix is
 * tried both decoded (a whsec_ secret pasted without its prefix, which is how the reference libraries read it) and
 * as raw bytes (senders that reuse a legacy secret, as the spec allows). `base64`: always decoded, prefix or not.
 * `raw`: the string's UTF-8 bytes, as given.
 */
export type SecretEncoding = 'auto' | 'base64' | 'raw';

export interface StandardWebhooksOptions {
  tolerance_seconds?: number;
  secret_encoding?: SecretEncoding;
}

// A real header carries one or two (rotation); far more is an attempt to make us hash a lot.
const MAX_SIGNATURES = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(encoded: string): Buffer | undefined {
  // Node's decoder skips characters it does not know; a mistyped secret must not quietly become another key.
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : undefined;
}

/** The HMAC keys a route secret may stand for (none when it cannot be a key: bad base64 after whsec_, empty). */
export function signingKeys(secret: string, encoding: SecretEncoding = 'auto'): Buffer[] {
  if (secret.length === 0) return [];
  const raw = Buffer.from(secret, 'utf8');
  if (encoding === 'raw') return [raw];
  const prefixed = secret.startsWith(SECRET_PREFIX);
  const decoded = decodeBase64(prefixed ? secret.slice(SECRET_PREFIX.length) : secret);
  if (encoding === 'base64' || prefixed) return decoded ? [decoded] : [];
  return decoded ? [decoded, raw] : [raw];
}

/** The `v1` signatures of a `webhook-signature` header (space-separated `<version>,<base64>`; other versions are skipped). */
export function v1Signatures(header: string): string[] {
  const signatures: string[] = [];
  for (const item of header.split(/\s+/)) {
    const comma = item.indexOf(',');
    if (comma > 0 && item.slice(0, comma) === 'v1' && comma < item.length - 1) signatures.push(item.slice(comma + 1));
  }
  return signatures;
}

/** A header by its spec name, else by its Svix name. */
function read(req: SourceRequest, name: string, svixName: string): string | undefined {
  return headerValue(req.headers, name) ?? headerValue(req.headers, svixName);
}

export function createStandardWebhooksSource(options: StandardWebhooksOptions = {}): Source {
  const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
  const encoding = options.secret_encoding ?? 'auto';

  function verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
    const header = read(req, SIGNATURE_HEADER, SVIX_HEADERS.signature);
    if (header === undefined) return missingHeader(`${SIGNATURE_HEADER} (or ${SVIX_HEADERS.signature})`);
    const id = read(req, ID_HEADER, SVIX_HEADERS.id)?.trim();
    if (!id) return { ok: false, reason: `missing ${ID_HEADER} header (it is part of the signed content)` };
    const timestamp = read(req, TIMESTAMP_HEADER, SVIX_HEADERS.timestamp)?.trim();
    if (!timestamp) return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
    if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `${TIMESTAMP_HEADER} is not a number of seconds` };
    const offered = v1Signatures(header);
    if (offered.length === 0) return { ok: false, reason: `${SIGNATURE_HEADER} holds no v1 signature` };
    if (offered.length > MAX_SIGNATURES) return { ok: false, reason: `${SIGNATURE_HEADER} holds ${offered.length} signatures (at most ${MAX_SIGNATURES} are read)` };

    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), req.rawBody]);
    let unusable = 0;
    const verdict = verdictForSecrets(
      secrets,
      (secret) => {
        const keys = signingKeys(secret, encoding);
        if (keys.length === 0) unusable += 1;
        // Every key and every offered signature is compared, so the time taken does not say which one matched.
        let hit = false;
        for (const key of keys) {
          const expected = hmacDigest('sha256', key, signed, 'base64');
          for (const candidate of offered) hit = constantTimeEqual(candidate, expected) || hit;
        }
        return hit;
      },
      'no v1 signature matches',
    );
    if (!verdict.ok) {
      return unusable > 0 ? { ok: false, reason: `${verdict.reason}; ${unusable} of the route's secrets is not a usable key (whsec_ must be followed by base64)` } : verdict;
    }
    const problem = timestampProblem(timestamp, req.receivedAt, tolerance);
    return problem ? { ok: false, reason: problem } : verdict;
  }

  return {
    headers: [SIGNATURE_HEADER, SVIX_HEADERS.signature, ID_HEADER, TIMESTAMP_HEADER, SVIX_HEADERS.id, SVIX_HEADERS.timestamp],
    verify,
    // The spec's payload structure: a full-stop delimited `type` such as `invoice.paid`.
    eventType: (_req, payload) => (typeof payload.type === 'string' && payload.type !== '' ? payload.type : undefined),
    // webhook-id is the spec's idempotency key: the same on every retry of a message.
    deliveryId: (req) => read(req, ID_HEADER, SVIX_HEADERS.id)?.trim() || undefined,
  };
}

export const optionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS),
    secret_encoding: {
      type: 'string',
      enum: ['auto', 'base64', 'raw'],
      default: 'auto',
      description: "How a route secret becomes the key: 'auto' decodes whsec_<base64> and tries a secret without the prefix both decoded and as raw bytes; 'base64' always decodes; 'raw' never does.",
    },
  },
};

const contribution: SourceContribution<StandardWebhooksOptions> = {
  kind: 'source',
  id: 'standard-webhooks',
  aliases: ['svix'],
  description: 'Standard Webhooks / Svix: webhook-id, webhook-timestamp, webhook-signature (v1 HMAC-SHA256); svix-* names too',
  optionsSchema,
  create: (options) => createStandardWebhooksSource(options),
};

export default definePlugin({
  package: require('../package.json') as PluginPackageJson,
  contributes: [contribution],
});
