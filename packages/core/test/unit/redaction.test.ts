// The one redactor: secrets are scrubbed in every form they take on the wire or in an answer that echoes a
// request, whatever their length, with one marker.
import { MIN_SECRET_LENGTH, REDACTED, SecretScrubber, secretForms, urlSecrets } from '@hookwise/core';

const SECRET = 'p@ss word/+~"é\\42';

describe('SecretScrubber', () => {
  const scrubber = new SecretScrubber([SECRET]);
  const clean = (text: string) => expect(scrubber.scrub(text)).not.toMatch(/p@ss|ss word|ss\+word|ss%20word|word%2F|cyBb/);

  it.each([
    ['raw', SECRET],
    ['URL component (encodeURIComponent)', encodeURIComponent(SECRET)],
    ['form-encoded query value (space as +)', new URLSearchParams({ password: SECRET }).toString().slice('password='.length)],
    ['lower-case percent escapes', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['twice URL-encoded', encodeURIComponent(encodeURIComponent(SECRET))],
    ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
    ['JSON-escaped with \\/ and \\u escapes', JSON.stringify(SECRET).slice(1, -1).replace(/\//g, '\\/').replace(/é/g, '\\u00e9')],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
  ])('scrubs the %s form', (_name, form) => {
    const out = scrubber.scrub(`before ${form} after`);
    expect(out).toBe(`before ${REDACTED} after`);
  });

  it('scrubs the secret inside a longer base64 value at any byte offset (an HTTP Basic credential)', () => {
    for (const user of ['a', 'ab', 'abc', 'account-sid']) {
      const basic = Buffer.from(`${user}:${SECRET}`).toString('base64');
      const out = scrubber.scrub(`authorization: Basic ${basic}`);
      expect(out).toContain(REDACTED);
      // What is left around the placeholder is at most the few characters that also encode the user name.
      expect(out.replace(/authorization: Basic /, '').replace(REDACTED, '').length).toBeLessThan(user.length + 8);
    }
  });

  it('scrubs the path and query forms a URL parser writes', () => {
    const url = new URL('https://h.example/x');
    url.pathname = `/hook/${SECRET}`;
    url.searchParams.set('key', SECRET);
    clean(url.toString());
    expect(scrubber.scrub(url.toString())).toBe(`https://h.example/hook/${REDACTED}?key=${REDACTED}`);
  });

  it('scrubs a secret whatever its length (issue 20), with one marker', () => {
    expect(MIN_SECRET_LENGTH).toBe(1);
    expect(REDACTED).toBe('[REDACTED]');
    expect(new SecretScrubber(['abc', 'q']).scrub('abc q abc')).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
    expect(secretForms('abcd')).toEqual(['abcd']);
    expect(secretForms('')).toEqual([]);
    expect(new SecretScrubber(['', undefined]).scrub('nothing registered')).toBe('nothing registered');
  });

  it('replaces a secret containing another whole, and in one pass (a marker is never scrubbed again)', () => {
    const nested = new SecretScrubber(['token', 'my-token-value', 'RED']);
    expect(nested.scrub('a my-token-value b token c')).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it('tells registered secrets apart from their derived forms, and does not derive forms of forms', () => {
    const scrubber = new SecretScrubber();
    const forms = scrubber.add('p@ss word/1');
    expect(forms[0]).toBe('p@ss word/1');
    expect(scrubber.add(encodeURIComponent('p@ss word/1'))).toEqual([]);
    expect(scrubber.has('p@ss word/1')).toBe(true);
    expect(scrubber.has(encodeURIComponent('p@ss word/1'))).toBe(true);
    expect(scrubber.has('p@ss')).toBe(false);
  });

  it('scrubs strings inside log metadata: nested objects, arrays and errors', () => {
    const scrubber = new SecretScrubber(['s3cr3t-value']);
    const error = new Error('failed with s3cr3t-value');
    const out = scrubber.scrubValue({ a: ['x s3cr3t-value'], b: { c: 's3cr3t-value' }, n: 3, e: error }) as Record<string, unknown>;
    expect(JSON.stringify(out)).not.toContain('s3cr3t-value');
    expect(out.n).toBe(3);
  });

  it('scrubs at any depth and in keys, and keeps a __proto__ key a key', () => {
    // Action inputs and lifecycle webhook bodies leave through scrubValue: a secret nested past the old depth
    // limit (6) left raw, and a payload key named __proto__ became the copy's prototype.
    const scrubber = new SecretScrubber(['s3cr3t-value']);
    let deep: unknown = { leaf: 'token s3cr3t-value' };
    for (let i = 0; i < 40; i += 1) deep = i % 2 ? { next: deep } : [deep];
    expect(JSON.stringify(scrubber.scrubValue(deep))).not.toContain('s3cr3t-value');
    const keyed = scrubber.scrubValue({ 's3cr3t-value': 1 }) as Record<string, unknown>;
    expect(Object.keys(keyed)).toEqual([REDACTED]);
    const hostile = scrubber.scrubValue(JSON.parse('{"__proto__": {"polluted": "s3cr3t-value"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(Object.keys(hostile)).toEqual(['__proto__']);
    expect(JSON.stringify(hostile)).toBe(`{"__proto__":{"polluted":"${REDACTED}"}}`);
    // Absurdly deep values become one scrubbed string rather than overflowing the stack.
    let abyss: unknown = 's3cr3t-value';
    for (let i = 0; i < 20_000; i += 1) abyss = [abyss];
    expect(JSON.stringify(scrubber.scrubValue(abyss))).not.toContain('s3cr3t-value');
  });

  it('registers an HTTP Basic credential as the encoded pair and the password', () => {
    const scrubber = new SecretScrubber();
    scrubber.addBasicAuth('sid', 'basic-pass');
    const header = `Basic ${Buffer.from('sid:basic-pass').toString('base64')}`;
    expect(scrubber.scrub(header)).toBe(`Basic ${REDACTED}`);
    expect(scrubber.scrub('password=basic-pass')).toBe(`password=${REDACTED}`);
  });
});

describe('urlSecrets', () => {
  it('scrubs the token of a webhook URL with a query string wherever it appears, and leaves the rest readable', () => {
    const hook = 'https://discord.com/api/webhooks/123/w3bh00k-t0ken-ABCDEF?thread_id=456';
    const scrubber = new SecretScrubber(urlSecrets(hook, 1));
    expect(scrubber.scrub('POST https://discord.com/api/webhooks/123/w3bh00k-t0ken-ABCDEF failed')).toBe(
      `POST https://discord.com/api/webhooks/123/${REDACTED} failed`,
    );
    expect(scrubber.scrub(`GET ${hook}&wait=true`)).toBe(`GET ${REDACTED}&wait=true`);
    expect(scrubber.scrub('{"url":"https:\\/\\/discord.com\\/api\\/webhooks\\/123\\/w3bh00k-t0ken-ABCDEF"}')).not.toContain('w3bh00k');
  });
});
