// The config object of a test gateway whose events come in on the generic webhook platform's routes: the part
// every such test writes the same way, so that the test itself shows only its routes and what else it sets.

/**
 * `{platforms: {webhook: {enabled: true, extra: {routes}}, ...more.platforms}, ...more}`: the webhook platform
 * with `routes` (each a route's keys: secret, source, prompt, deliver...), then the other platforms and top-level
 * keys of `more` (agent, store, retry, admin...).
 */
export function routesConfig(routes: Record<string, Record<string, unknown>>, more: Record<string, unknown> = {}): Record<string, unknown> {
  const { platforms, ...rest } = more;
  return { platforms: { webhook: { enabled: true, extra: { routes } }, ...(platforms as Record<string, unknown> | undefined) }, ...rest };
}
