// Suggestions for mistyped names ("webhok" -> "webhook", "--event" -> "--events", a config key "agnet" -> "agent",
// "deliver: telegarm" -> "telegram"): the closest known name by edit distance, or the only known name the input is a
// prefix of. In core so that the CLI and the config loader suggest alike.

/** Levenshtein distance with adjacent transpositions counted as one edit ("wbehook" is one edit from "webhook"). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known name closest to `input`: within a third of its length in edits (at least 1, at most 3), else the one
 * name that starts with it ("--sub" -> "--subscribe"). Undefined when nothing is close or it is a tie.
 */
export function closestMatch(input: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const name of new Set(known)) {
    const distance = editDistance(input.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) {
      tie = true;
    }
  }
  if (best !== undefined && bestDistance <= limit && !tie) return best;
  const prefixed = [...new Set(known)].filter((name) => input.length >= 2 && name.startsWith(input));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
