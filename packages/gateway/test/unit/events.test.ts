import { eventAccepted, normaliseEventType } from '../../src/ingest/events';

describe('event types', () => {
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
