// Plain-text tables for listing commands: left-aligned columns, long cells shortened so that a row stays one line
// (except columns of ids, which a user copies into the next command and must stay whole).

const MAX_CELL = 48;

function cell(value: string, whole: boolean): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return !whole && flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

/** `whole`: indexes of columns never shortened (ids). */
export function renderTable(headers: string[], rows: string[][], options: { whole?: number[] } = {}): string {
  const whole = new Set(options.whole ?? []);
  const cells = [headers, ...rows.map((row) => row.map((value, i) => cell(value, whole.has(i))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((value, i) => (i === row.length - 1 ? value : value.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
