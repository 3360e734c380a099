// retryAfterFromHeaders: the one reader of Retry-After hints for every platform deliverer and agent runner.
import { retryAfterFromHeaders } from '@hookwise/kit';

describe('retryAfterFromHeaders', () => {
  const now = () => Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');

  it('prefers retry-after-ms over Retry-After and answers in seconds', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(0.25);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '1500' }))).toBe(1.5);
  });

  it('reads Retry-After as delta-seconds or as an HTTP date (a past date is 0)', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '4' }))).toBe(4);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:05 GMT' }), now)).toBe(5);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }), now)).toBe(0);
  });

  it('ignores what it cannot read: no header, words, negative numbers, an unreadable retry-after-ms', () => {
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '-5' }))).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': 'x', 'retry-after': '2' }))).toBe(2);
  });
});
