// Config text for tests that run `hookwise gateway run` as a real process on a config dir.

/**
 * The `platforms:` lines of a config.yaml: the webhook platform on a free port of 127.0.0.1 (each process gets its
 * own; the gateway logs which) with `routes`, each route given as its keys, one YAML line each (nested keys indented
 * two more spaces). More platforms may follow the returned lines, indented two spaces.
 */
export function webhookPlatformLines(routes: Record<string, string[]>): string[] {
  return [
    'platforms:',
    '  webhook:',
    '    enabled: true',
    '    extra:',
    '      host: 127.0.0.1',
    '      port: 0',
    '      routes:',
    ...Object.entries(routes).flatMap(([name, keys]) => [`        ${name}:`, ...keys.map((key) => `          ${key}`)]),
  ];
}
