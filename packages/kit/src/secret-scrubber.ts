// Scrubs a platform's secrets from every error message and log line the kit produces, in every form a
// secret can take on the wire (raw, URL-encoded, inside an HTTP Basic credential).

export const REDACTED = '[REDACTED]';

export class SecretScrubber {
  private readonly forms = new Set<string>();

  constructor(secrets: ReadonlyArray<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Registers a secret; returns every form it was registered under (for the gateway's own redactor). */
  add(secret: string | undefined): string[] {
    // Very short values would scrub ordinary words; no real credential is that short.
    if (!secret || secret.length < 4) return [];
    const forms = [secret, encodeURIComponent(secret)];
    for (const form of forms) this.forms.add(form);
    return forms;
  }

  /** Registers the `user:password` pair of an HTTP Basic credential, including its base64 form. */
  addBasicAuth(user: string, password: string): string[] {
    const encoded = Buffer.from(`${user}:${password}`).toString('base64');
    this.forms.add(encoded);
    return [encoded, ...this.add(password)];
  }

  scrub(text: string): string {
    let out = text;
    // Longest first, so that a secret containing another is replaced whole.
    for (const form of [...this.forms].sort((a, b) => b.length - a.length)) out = out.split(form).join(REDACTED);
    return out;
  }
}
