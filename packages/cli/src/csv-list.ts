// Comma-separated flag values (`--events push,pull_request`) as a clean list; an empty string clears the list.

export function parseCsv(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
