// Plain-text tables for listing commands: left-aligned columns fitted to 120 terminal columns. Long cells are
// shortened with … (widest first), columns of ids and times a user copies stay whole, `wrap` columns continue on the
// next lines instead of being cut, and `drop` columns go last when nothing else helps. `--wide` shows every cell
// whole on one line.
import { Flags } from '@oclif/core';

/** The width tables are fitted to. */
export const TABLE_WIDTH = 120;
/** A shortened cell is never narrower than this (or its header). */
const MIN_COLUMN = 8;
const GAP = 2;

export const wideFlag = Flags.boolean({ description: 'Show every cell whole on one line (tables are fitted to 120 columns otherwise).' });

export interface TableOptions {
  /** Columns never shortened (ids, times, URLs). */
  whole?: number[];
  /** Columns wrapped onto continuation lines instead of shortened (a doctor's fix). */
  wrap?: number[];
  /** Columns left out, in this order, when shortening the others is not enough. */
  drop?: number[];
  /** Every cell whole, no fitting. */
  wide?: boolean;
  /** Fit to this width instead of TABLE_WIDTH. */
  width?: number;
}

function shorten(value: string, width: number): string {
  return value.length > width ? `${value.slice(0, Math.max(1, width - 1))}…` : value;
}

/** `value` cut into lines of at most `width` characters, at spaces where it can. */
function wrapLines(value: string, width: number): string[] {
  const lines: string[] = [];
  let rest = value;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const cut = space > width / 2 ? space : width;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  lines.push(rest);
  return lines;
}

const total = (widths: number[]) => widths.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, widths.length - 1);

export function renderTable(headers: string[], rows: string[][], options: TableOptions = {}): string {
  const flat = rows.map((row) => headers.map((_, i) => (row[i] ?? '').replace(/\s+/g, ' ').trim()));
  let columns = headers.map((_, i) => i);
  const natural = (i: number) => Math.max(headers[i].length, ...flat.map((row) => row[i].length));
  const widths = new Map(columns.map((i) => [i, natural(i)]));
  if (!options.wide) {
    const limit = options.width ?? TABLE_WIDTH;
    const fixed = new Set(options.whole ?? []);
    const floor = (i: number) => Math.max(headers[i].length, MIN_COLUMN);
    const fits = () => total(columns.map((i) => widths.get(i)!)) <= limit;
    // Narrow the widest shortenable column one step at a time; then drop columns in the order given.
    for (const dropping of [undefined, ...(options.drop ?? [])]) {
      if (dropping !== undefined) {
        columns = columns.filter((i) => i !== dropping);
        // The columns narrowed for the dropped one get their width back before they are narrowed again.
        for (const i of columns) widths.set(i, natural(i));
      }
      while (!fits()) {
        const widest = columns.filter((i) => !fixed.has(i) && widths.get(i)! > floor(i)).sort((a, b) => widths.get(b)! - widths.get(a)!)[0];
        if (widest === undefined) break;
        widths.set(widest, widths.get(widest)! - 1);
      }
      if (fits()) break;
    }
  }
  const wrap = new Set(options.wide ? [] : (options.wrap ?? []));
  const lineOf = (cells: string[]) =>
    cells
      .map((value, n) => (n === cells.length - 1 ? value : value.padEnd(widths.get(columns[n])!)))
      .join(' '.repeat(GAP))
      .trimEnd();
  const out = [lineOf(columns.map((i) => headers[i]))];
  for (const row of flat) {
    const parts = columns.map((i) => (wrap.has(i) ? wrapLines(row[i], widths.get(i)!) : [options.wide ? row[i] : shorten(row[i], widths.get(i)!)]));
    const height = Math.max(...parts.map((p) => p.length));
    for (let line = 0; line < height; line++) out.push(lineOf(parts.map((p) => p[line] ?? '')));
  }
  return out.join('\n');
}
