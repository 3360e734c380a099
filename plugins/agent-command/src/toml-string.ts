// Values for codex's `-c key=value` overrides, which it parses as TOML.

/** A TOML basic string ("..."). */
export function tomlString(text: string): string {
  // JSON escapes quote, backslash and C0 controls the way TOML does; TOML also wants DEL escaped.
  return JSON.stringify(text).replace(/\u007f/g, '\\u007F');
}
