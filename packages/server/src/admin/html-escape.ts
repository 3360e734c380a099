// Text made safe for HTML: every page of the dashboard escapes what it shows through this one function, and shows a
// moment through `time`.

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A moment as a `<time>` element in UTC (`2026-11-28 21:42:05Z`), `–` when there is none. */
export function time(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return `<time datetime="${new Date(ms).toISOString()}">${new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')}</time>`;
}
