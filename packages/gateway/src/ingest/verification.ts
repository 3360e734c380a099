// Verification: which source checks a request (the route's pinned one, or the SPEC style whose header is
// present), what it is given, and its verdict with the log lines a failure or an older secret is worth.
import { errorMessage, headerValue, type HeaderMap, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { fail } from './answers';
import type { IngestRequest, IngestResult, NamedSource, PipelineDeps } from './pipeline-contract';
import type { Route } from '../routes/routes';

/** The source that checks a request: the route's pinned one, or the first SPEC style whose header is present. */
export function chooseSource(route: Route, candidates: readonly NamedSource[], headers: HeaderMap): NamedSource | undefined {
  return route.source !== undefined ? candidates[0] : candidates.find(({ source }) => source.headers.some((h) => headerValue(headers, h) !== undefined));
}

/** What a source is asked about: the headers, the exact bytes, the sender's URL and when the request came. */
export function sourceRequestOf(publicUrl: string | undefined, req: IngestRequest, rawBody: Buffer): SourceRequest {
  return { headers: req.headers, rawBody, url: fullUrl(publicUrl, req), receivedAt: Date.now(), method: req.method ?? 'POST' };
}

/** The sender's URL of a request: the configured public origin (or the Host header) and the path as received. */
function fullUrl(publicUrl: string | undefined, req: IngestRequest): string {
  const path = req.url ?? `/webhooks/${req.route}`;
  const origin = publicUrl ?? `http://${headerValue(req.headers, 'host') ?? 'localhost'}`;
  return `${origin}${path}`;
}

export type Verification = { ok: true; secretIndex: number } | { ok: false; result: IngestResult };

/**
 * Checks the signature with the chosen source against the route's secrets. A failure is answered 401 (missing
 * or invalid) and counted per client; only the first failure of a client's minute is logged at once
 * (auth-throttle.ts).
 */
export function verifyRequest(
  deps: Pick<PipelineDeps, 'logger' | 'authThrottle'>,
  route: Route,
  chosen: NamedSource | undefined,
  req: SourceRequest,
  client: string | undefined,
  candidates: readonly NamedSource[] = [],
): Verification {
  const { logger, authThrottle } = deps;
  // Built only for a line that is written: most requests verify and log nothing.
  const meta = () => (client === undefined ? { route: route.name, source: chosen?.id } : { route: route.name, source: chosen?.id, client });
  const warn = (kind: 'Missing signature' | 'Invalid signature', line: string): void => {
    if (!authThrottle || authThrottle.failed(client, route.name, kind)) logger.warn(line, meta());
  };
  if (!chosen) {
    // Each accepted source's signature header (the first it declares), as the sources name them.
    const accepted = candidates.map(({ id, source }) => (source.headers[0] ? `${id} ${source.headers[0]}` : id)).join(', ');
    warn(
      'Missing signature',
      `Missing signature on route '${route.name}': no recognised signature header (accepted: ${accepted || 'none'}; pin a source with \`source:\` for other senders)`,
    );
    return { ok: false, result: fail('HW_E_MISSING_SIGNATURE') };
  }
  let verdict: SourceVerdict;
  try {
    verdict = chosen.source.verify(req, route.secrets);
  } catch (err) {
    verdict = { ok: false, reason: `source error: ${errorMessage(err)}` };
  }
  if (verdict.ok) {
    if (verdict.secretIndex > 0) {
      logger.info(
        `route '${route.name}' verified with secret #${verdict.secretIndex + 1} of ${route.secrets.length} (${chosen.id}): senders still use an older secret; remove it once none does`,
        { ...meta(), secret_index: verdict.secretIndex },
      );
    }
    return { ok: true, secretIndex: verdict.secretIndex };
  }
  const origin = route.secretOrigin === 'global' ? 'the global secret' : `the ${route.secretOrigin ?? 'route'}'s own secret`;
  if (verdict.missing) {
    warn('Missing signature', `Missing signature on route '${route.name}' (${chosen.id}: ${verdict.reason})`);
    return { ok: false, result: fail('HW_E_MISSING_SIGNATURE') };
  }
  warn(
    'Invalid signature',
    `Invalid signature on route '${route.name}' (${chosen.id}: ${verdict.reason}; checked against ${origin}${route.secrets.length > 1 ? `s (${route.secrets.length})` : ''})`,
  );
  return { ok: false, result: fail('HW_E_INVALID_SIGNATURE') };
}
