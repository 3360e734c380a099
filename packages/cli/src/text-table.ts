// Plain-text tables for listing commands: left-aligned columns, long cells shortened so that a row stays one line.

const MAX_CELL = 48;

function cell(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

export function renderTable(headers: string[], rows: string[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(cell))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells.map((row) => row.map((value, i) => (i === row.length - 1 ? value : value.padEnd(widths[i]))).join('  ').trimEnd()).join('\n');
}
