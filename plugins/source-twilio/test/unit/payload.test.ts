// Unit tests of the Twilio source's payload, event type and delivery id, on Twilio's documented webhook parameters,
// and of the plugin package (manifest, options schema).
import type { SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '@hookwise/gateway';
import plugin, { twilioSource } from '../../src';

const source = twilioSource.create();
const request = (rawBody: string, url = 'https://hooks.example.com/webhooks/sms', headers: SourceRequest['headers'] = {}): SourceRequest => ({
  url,
  rawBody: Buffer.from(rawBody),
  headers,
  receivedAt: Date.now(),
});
const formOf = (params: Record<string, string>) => new URLSearchParams(params).toString();

// An incoming message, with the request parameters listed on https://www.twilio.com/docs/messaging/guides/webhook-request
// (placeholder SIDs and numbers as on that page).
const INBOUND_SMS = {
  ToCountry: 'US',
  ToState: 'CA',
  SmsMessageSid: 'SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  NumMedia: '0',
  ToCity: 'SAN FRANCISCO',
  FromZip: '94105',
  SmsSid: 'SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  FromState: 'CA',
  SmsStatus: 'received',
  FromCity: 'SAN FRANCISCO',
  Body: 'Hello from Twilio + friends & co',
  FromCountry: 'US',
  To: '+15558675310',
  ToZip: '94105',
  NumSegments: '1',
  MessageSid: 'SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  AccountSid: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  From: '+14017122661',
  ApiVersion: '2010-04-01',
};
// A message status callback (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status).
const STATUS_CALLBACK = {
  AccountSid: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  From: '+15017122661',
  MessageSid: 'SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  MessageStatus: 'delivered',
  SmsSid: 'SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  SmsStatus: 'delivered',
  To: '+15558675310',
  ApiVersion: '2010-04-01',
};
// A voice call (https://www.twilio.com/docs/voice/twiml#request-parameters).
const INCOMING_CALL = {
  CallSid: 'CAcccccccccccccccccccccccccccccccc',
  AccountSid: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  From: '+14158675310',
  To: '+15558675310',
  CallStatus: 'ringing',
  Direction: 'inbound',
  ApiVersion: '2010-04-01',
};

describe('twilio source: parse', () => {
  it("returns a form body's fields, decoded", () => {
    const payload = source.parse!(request(formOf(INBOUND_SMS)));
    expect(payload).toEqual(INBOUND_SMS);
    expect(payload?.Body).toBe('Hello from Twilio + friends & co');
  });

  it('keeps every value of a repeated field, in order', () => {
    expect(source.parse!(request('MediaUrl0=a&Tag=x&Tag=y&Tag=x'))).toEqual({ MediaUrl0: 'a', Tag: ['x', 'y', 'x'] });
  });

  it('reads an empty body as no fields, and a field named __proto__ as an ordinary field', () => {
    expect(source.parse!(request(''))).toEqual({});
    const payload = source.parse!(request('__proto__=x&Body=y'))!;
    expect(Object.keys(payload)).toEqual(['__proto__', 'Body']);
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
  });

  it('parses a JSON body only when the URL carries bodySHA256 (what signed it)', () => {
    const json = '{"EventType":"onMessageAdded","Body":"hi"}';
    expect(source.parse!(request(json, 'https://hooks.example.com/webhooks/conv?bodySHA256=abc'))).toEqual({ EventType: 'onMessageAdded', Body: 'hi' });
    expect(source.parse!(request('[1,2]', 'https://hooks.example.com/webhooks/conv?bodySHA256=abc'))).toBeUndefined();
    expect(source.parse!(request('{not json', 'https://hooks.example.com/webhooks/conv?bodySHA256=abc'))).toBeUndefined();
    // Without bodySHA256 the same text is a form (one field named after the whole body), as verification read it.
    expect(source.parse!(request(json))).toEqual({ [json]: '' });
  });
});

describe('twilio source: event type', () => {
  const eventOf = (params: Record<string, string>, options = {}) => {
    const req = request(formOf(params));
    return twilioSource.create(options).eventType!(req, source.parse!(req)!);
  };

  it('names messages message.<status>, calls call.<status>, recordings recording.<status>', () => {
    expect(eventOf(INBOUND_SMS)).toBe('message.received');
    expect(eventOf(STATUS_CALLBACK)).toBe('message.delivered');
    expect(eventOf(INCOMING_CALL)).toBe('call.ringing');
    expect(eventOf({ ...INCOMING_CALL, CallStatus: 'completed', RecordingSid: 'REdddddddddddddddddddddddddddddddd', RecordingStatus: 'completed' })).toBe(
      'recording.completed',
    );
  });

  it('takes EventType as it is (Conversations, TaskRouter)', () => {
    expect(eventOf({ EventType: 'onMessageAdded', ConversationSid: 'CH00', Body: 'hi' })).toBe('onMessageAdded');
    expect(eventOf({ EventType: 'task.created', TaskSid: 'WT00' })).toBe('task.created');
  });

  it('uses the event_field option as it is, and nothing when that field is absent', () => {
    expect(eventOf(STATUS_CALLBACK, { event_field: 'SmsStatus' })).toBe('delivered');
    expect(eventOf(INCOMING_CALL, { event_field: 'SmsStatus' })).toBeUndefined();
  });

  it('has no event type for a body without any of those fields', () => {
    expect(eventOf({ Foo: 'bar' })).toBeUndefined();
  });
});

describe('twilio source: delivery id', () => {
  const idOf = (params: Record<string, string>, headers: SourceRequest['headers'] = {}) => {
    const req = request(formOf(params), undefined, headers);
    return source.deliveryId!(req, source.parse!(req)!);
  };

  it('is I-Twilio-Idempotency-Token when Twilio sends it', () => {
    expect(idOf(STATUS_CALLBACK, { 'i-twilio-idempotency-token': 'b5c7e2b0-6a5e-4a53-8f1e-token' })).toBe('b5c7e2b0-6a5e-4a53-8f1e-token');
  });

  it('is otherwise the SID and its status, so the same status change is one delivery', () => {
    expect(idOf(STATUS_CALLBACK)).toBe('SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:delivered');
    expect(idOf(INBOUND_SMS)).toBe('SMaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:received');
    expect(idOf(INCOMING_CALL)).toBe('CAcccccccccccccccccccccccccccccccc:ringing');
    expect(idOf({ CallSid: 'CA00', RecordingSid: 'RE00', RecordingStatus: 'completed' })).toBe('RE00:completed');
    expect(idOf({ MessageSid: 'SM00' })).toBe('SM00');
  });

  it('is undefined (the gateway falls back) when there is neither', () => {
    expect(idOf({ Foo: 'bar' })).toBeUndefined();
  });
});

describe('twilio plugin', () => {
  it('contributes the source twilio on X-Twilio-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:twilio']);
    expect(source.headers).toEqual(['x-twilio-signature']);
  });

  it('validates its options as the gateway does: event_field is a non-empty string, nothing else is allowed', () => {
    const registry = new PluginRegistry([{ plugin, source: '@hookwise/plugin-source-twilio', options: {} }]);
    const check = (options: Record<string, unknown>) => registry.validateOptions('source', 'twilio', options, 'source_options').problems;
    expect(check({})).toEqual([]);
    expect(check({ event_field: 'CallStatus' })).toEqual([]);
    expect(check({ event_field: '' })).toHaveLength(1);
    expect(check({ unknown: 1 })).toHaveLength(1);
  });
});
