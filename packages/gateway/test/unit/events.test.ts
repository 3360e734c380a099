import { eventAccepted, normaliseEventType, readEventType } from '../../src/events';

describe('event types', () => {
  it('reads X-CodeHostA-Event, then X-CodeHostB-Event, then event_type in the payload', () => {
    expect(readEventType({ 'x-codehosta-event': 'push', 'x-codehostb-event': 'Push Hook' }, { event_type: 'x' })).toBe('push');
    expect(readEventType({ 'x-codehostb-event': 'Merge Request Hook' }, { event_type: 'x' })).toBe('Merge Request Hook');
    expect(readEventType({}, { event_type: 'deploy' })).toBe('deploy');
    expect(readEventType({}, { other: 1 })).toBe('');
  });

  it("normalises code host B's names", () => {
    expect(normaliseEventType('Merge Request Hook')).toBe('merge_request');
    expect(normaliseEventType('Push Hook')).toBe('push');
    expect(normaliseEventType('Tag Push Hook')).toBe('tag_push');
    expect(normaliseEventType('pull_request')).toBe('pull_request');
  });

  it('accepts all events for an empty filter, and the raw or normalised value otherwise', () => {
    expect(eventAccepted([], 'anything')).toBe(true);
    expect(eventAccepted(undefined, '')).toBe(true);
    expect(eventAccepted(['merge_request'], 'Merge Request Hook')).toBe(true);
    expect(eventAccepted(['Merge Request Hook'], 'Merge Request Hook')).toBe(true);
    expect(eventAccepted(['push'], 'Merge Request Hook')).toBe(false);
    expect(eventAccepted(['push'], '')).toBe(false);
  });
});
