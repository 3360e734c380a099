// Secrets are scrubbed in every form they take on the wire or in an answer that echoes a request.
import { REDACTED, SecretScrubber, secretForms, urlSecrets } from '@hookwise/kit';

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

  it('ignores values too short to be credentials', () => {
    expect(new SecretScrubber(['abc']).scrub('abc abc')).toBe('abc abc');
    expect(secretForms('abcd')).toEqual(['abcd']);
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
