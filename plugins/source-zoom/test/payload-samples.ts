// Documented Zoom payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

// The meeting.started example of Zoom's webhook sample (github.com/zoom/webhook-sample, README), ids filled in.
export const UUID = '4444AAAiAAAAAiAiAiiAii==';

export const MEETING_STARTED = `{"event":"meeting.started","payload":{"account_id":"AAAAAABBBB","object":{"duration":0,"start_time":"2021-11-02T20:43:19Z","timezone":"America/Denver","topic":"Weekly sync","id":"85746065432","type":4,"uuid":"${UUID}","host_id":"x1yCzABCDEfg23HiJKl4mN"}},"event_ts":1635885799302}`;

const samples: PayloadSample[] = [{ name: 'meeting.started', event: 'meeting.started', body: MEETING_STARTED }];
export default samples;
