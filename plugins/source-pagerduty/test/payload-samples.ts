// Documented PagerDuty payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

/** An incident.triggered V3 webhook in the shape of PagerDuty's webhook payload reference. */
export const INCIDENT_TRIGGERED =
  '{"event":{"id":"01DEN1HNLBC1VITJXO5FU5ZYWP","event_type":"incident.triggered","resource_type":"incident","occurred_at":"2020-10-02T18:45:22.169Z","agent":null,"client":null,"data":{"id":"PGR0VU2","type":"incident","self":"https://api.pagerduty.com/incidents/PGR0VU2","html_url":"https://acme.pagerduty.com/incidents/PGR0VU2","number":2,"status":"triggered","title":"A little bump in the road","urgency":"high","service":{"id":"PF9KMXH","summary":"API Service","type":"service_reference"}}}}';

const samples: PayloadSample[] = [{ name: 'incident.triggered', event: 'incident.triggered', body: INCIDENT_TRIGGERED }];
export default samples;
