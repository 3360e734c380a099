// The generic webhook platform's signed request, as tests of routes without a source send their events.
import { signGeneric, type TestGateway } from './gateway-harness';

/**
 * Posts `payload` as JSON to `route`, signed with the route's `secret` (X-Webhook-Signature: hex HMAC-SHA256 of the
 * body), with X-Request-Id (the delivery id) when `requestId` is given; answers the gateway's response.
 */
export function postSigned(gw: TestGateway, route: string, secret: string, payload: unknown, requestId?: string): ReturnType<TestGateway['post']> {
  const body = JSON.stringify(payload);
  return gw.post(route, body, { 'x-webhook-signature': signGeneric(secret, body), ...(requestId === undefined ? {} : { 'x-request-id': requestId }) });
}
