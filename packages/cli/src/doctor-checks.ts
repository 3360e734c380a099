// What `hookwise doctor` checks, in the order a gateway needs them: config, secrets, routes, plugins, store, agent,
// GitHub CLI (gh), platforms' credentials, and whether a gateway runs on this config dir. Each check reports
// what it found and, when something is wrong, what to do; none shows a secret.
import { Writable } from 'node:stream';
import { resolve } from 'node:path';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import {
  INSECURE_NO_AUTH,
  createLogger,
  createMemoryStore,
  dotenvModeProblem,
  openConfiguredStore,
  openGateway,
  readRunFile,
  type LoadedConfig,
} from '@hookwise/gateway';
import { FIRST_PARTY_DIR, FIRST_PARTY_PLUGINS, loadFirstPartyPlugins } from './first-party';
import { distributionOptions } from './distribution';
import { listPlugins } from './plugin-manifests';
import { listRoutes } from './route-listing';
import { checkAgentCommands, checkGithubClient, type CheckResult } from './tool-checks';
import { sandboxChecks } from './sandbox-checks';
import { configParseError } from './config-parse-error';
import { loadChosen, type ProfileChoice } from './profile-choice';

const MIN_SECRET_LENGTH = 16;

/** A logger that keeps its lines, so that warnings a check provokes become part of its result. */
function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'warn', format: 'json', stream }), lines };
}

function messageOf(line: string): string {
  try {
    return String((JSON.parse(line) as { message?: unknown }).message ?? line);
  } catch {
    return line;
  }
}

function problemsOf(err: unknown): string[] {
  return err instanceof HookwiseConfigError ? err.problems : [errorMessage(err)];
}

/** The store as a person recognises it, without credentials. */
function describeStore(loaded: LoadedConfig): string {
  const store = loaded.config.store as { backend: string; path?: unknown; url?: unknown };
  if (store.backend === 'sqlite') return `sqlite at ${resolve(loaded.configDir, typeof store.path === 'string' ? store.path : 'hookwise.sqlite')}`;
  if (store.backend === 'redis' && typeof store.url === 'string') {
    try {
      const url = new URL(store.url);
      return `redis at ${url.hostname}:${url.port || 6379}${url.pathname && url.pathname !== '/' ? url.pathname : ''}`;
    } catch {
      return 'redis';
    }
  }
  return store.backend;
}

function secretChecks(loaded: LoadedConfig): CheckResult[] {
  const extra = loaded.config.platforms.webhook.extra;
  const globals = (extra.secrets ?? (extra.secret ? [extra.secret] : [])).filter((s) => s !== '');
  const results: CheckResult[] = [];
  if (!globals.length) {
    results.push({ check: 'global secret', status: 'ok', detail: 'none set: every route needs its own secret (routes below)' });
  } else if (globals.some((s) => s !== INSECURE_NO_AUTH && s.length < MIN_SECRET_LENGTH)) {
    results.push({
      check: 'global secret',
      status: 'fail',
      detail: `shorter than ${MIN_SECRET_LENGTH} characters`,
      fix: 'generate one: hookwise gateway setup --yes --secret "$(openssl rand -hex 32)"',
    });
  } else {
    results.push({
      check: 'global secret',
      status: 'ok',
      detail: `set${globals.length > 1 ? ` (${globals.length}, rotating)` : ''} (WEBHOOK_SECRET or platforms.webhook.extra.secret)`,
    });
  }
  return results;
}

async function storeCheck(loaded: LoadedConfig): Promise<CheckResult> {
  const where = describeStore(loaded);
  if (loaded.config.store.backend === 'memory') {
    return {
      check: 'store',
      status: 'warn',
      detail: 'memory: accepted events are lost when the gateway stops',
      fix: 'use store.backend: sqlite (the default) or redis in production',
    };
  }
  try {
    const opened = await openConfiguredStore(loaded, {
      firstParty: await loadFirstPartyPlugins(),
      logger: createLogger({ level: 'error', stream: process.stderr }),
    });
    try {
      await opened.store.jobs.list({ limit: 1 });
    } finally {
      await opened.close();
    }
    return { check: 'store', status: 'ok', detail: `${where}: opened and read` };
  } catch (err) {
    return { check: 'store', status: 'fail', detail: `${where}: ${errorMessage(err)}`, fix: 'see docs/operations.md (SQLite, Redis)' };
  }
}

/** Opens the gateway as `gateway run` would (on a memory store) and asks it about routes, plugins and platforms. */
async function gatewayChecks(loaded: LoadedConfig): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const manifestProblems = listPlugins({
    firstParty: FIRST_PARTY_PLUGINS,
    configured: loaded.config.plugins,
    storeBackend: loaded.config.store.backend,
    configDir: loaded.configDir,
    firstPartyDir: FIRST_PARTY_DIR,
  }).filter((p) => p.problem);
  const captured = capturingLogger();
  let opened: Awaited<ReturnType<typeof openGateway>>;
  try {
    opened = await openGateway(loaded, { logger: captured.logger, ...(await distributionOptions()), store: createMemoryStore() });
  } catch (err) {
    results.push({ check: 'plugins', status: 'fail', detail: problemsOf(err).join('; '), fix: 'see docs/troubleshooting.md (the gateway refuses to start)' });
    return results;
  }
  try {
    const { gateway, plugins } = opened;
    results.push(
      manifestProblems.length
        ? { check: 'plugins', status: 'warn', detail: manifestProblems.map((p) => `${p.spec}: ${p.problem}`).join('; ') }
        : { check: 'plugins', status: 'ok', detail: `${plugins.length} loaded (${loaded.config.plugins.length} from plugins:)` },
    );
    const routes = listRoutes(loaded);
    for (const listed of routes) {
      if (listed.status === 'disabled') continue;
      const problems = listed.route && listed.status !== 'invalid' ? gateway.routeProblems(listed.route) : [];
      const all = [...listed.problems, ...problems];
      const check = `route '${listed.name}'`;
      if (all.length) results.push({ check, status: listed.status === 'hidden' ? 'warn' : 'fail', detail: all.join('; ') });
      else
        results.push({
          check,
          status: listed.secret === 'INSECURE_NO_AUTH' ? 'warn' : 'ok',
          detail: `${listed.origin}, secret: ${listed.secret === 'INSECURE_NO_AUTH' ? 'none (INSECURE_NO_AUTH, local testing only)' : listed.secret}, deliver: ${listed.deliver}`,
        });
    }
    if (!routes.length)
      results.push({
        check: 'routes',
        status: 'warn',
        detail: 'no routes: every webhook is answered 404',
        fix: 'hookwise webhook subscribe <name> --events <types>, or routes: in config.yaml',
      });

    const runner = loaded.config.agent.runner;
    if (!gateway.registry.get('agent', runner)) results.push({ check: 'agent', status: 'fail', detail: `unknown agent runner '${runner}'` });
    else if (runner === 'echo')
      results.push({
        check: 'agent',
        status: 'warn',
        detail: 'echo: every answer is the rendered prompt',
        fix: 'configure a real runner (command or openai): docs/agents.md',
      });
    else {
      try {
        await gateway.agentFor({ name: '(global)' });
        results.push({ check: 'agent', status: 'ok', detail: `runner ${runner}: options valid` });
      } catch (err) {
        results.push({ check: 'agent', status: 'fail', detail: problemsOf(err).join('; ') });
      }
    }
    const activeRoutes = routes.filter((r) => r.status === 'active' && r.route).map((r) => r.route!);
    for (const f of gateway.exposureFindings(activeRoutes)) results.push({ check: f.check, status: 'warn', detail: f.detail, fix: f.fix });
    const toolOptions = { config: loaded.config, routes: activeRoutes, configDir: loaded.configDir, env: loaded.env };
    results.push(...(await checkAgentCommands(toolOptions)), ...(await checkGithubClient(toolOptions)));
    results.push(...(await sandboxChecks(gateway, activeRoutes)));

    // Each enabled platform is created as at start, which runs its credentials check against the service.
    for (const [id, block] of Object.entries(loaded.config.platforms)) {
      if (id === 'webhook' || (block as { enabled?: boolean }).enabled !== true || !gateway.registry.get('deliverer', id)) continue;
      const check = `platform ${id}`;
      const before = captured.lines.length;
      try {
        await gateway.delivererFor({ deliver: id });
        const unreachable = captured.lines
          .slice(before)
          .map(messageOf)
          .find((line) => line.includes(`'${gateway.registry.canonicalId('deliverer', id)}' could not be reached`));
        results.push(
          unreachable
            ? { check, status: 'warn', detail: unreachable, fix: 'check the network path to the service (deliveries are retried)' }
            : { check, status: 'ok', detail: 'configured; credentials accepted (or nothing to check)' },
        );
      } catch (err) {
        results.push({ check, status: 'fail', detail: problemsOf(err).join('; '), fix: `fix platforms.${id} in config.yaml or .env: docs/platforms.md` });
      }
    }
  } finally {
    await opened.close(0).catch(() => undefined);
  }
  return results;
}

/** Every check; a config that does not load stops the ones that need it. */
export async function runDoctor(choice: ProfileChoice, env: NodeJS.ProcessEnv = process.env): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const configDir = choice.dir;
  let loaded: LoadedConfig;
  try {
    loaded = loadChosen(choice, env);
  } catch (err) {
    // `gateway setup` refuses a file that does not parse, so the fix for one is the syntax, at the yaml position
    // (a profile's config.yaml lies over the global one: either may be the one).
    const syntax = configParseError(configDir) ?? (choice.profile ? configParseError(choice.rootDir) : undefined);
    if (syntax)
      return [
        {
          check: 'config',
          status: 'fail',
          detail: `${syntax.file} does not parse: ${syntax.message} at line ${syntax.line}, column ${syntax.column}`,
          fix: `correct line ${syntax.line} of ${syntax.file} (shown below); gateway setup will not edit a file that does not parse`,
          excerpt: syntax.excerpt,
        },
      ];
    return [
      {
        check: 'config',
        status: 'fail',
        detail: problemsOf(err).join('; '),
        fix: /does not parse/.test(errorMessage(err))
          ? 'correct the syntax error named here (gateway setup will not edit a file that does not parse)'
          : 'docs/configuration-reference.md; hookwise gateway setup writes a working one',
      },
    ];
  }
  results.push({ check: 'config', status: 'ok', detail: `${loaded.configFile ?? `${configDir} (no config.yaml: defaults)`} loads and validates` });
  if (!loaded.config.platforms.webhook.enabled) {
    results.push({
      check: 'webhook adapter',
      status: 'fail',
      detail: 'platforms.webhook.enabled is false',
      fix: 'run `hookwise gateway setup`, or set WEBHOOK_ENABLED=true',
    });
  }
  results.push(...secretChecks(loaded));
  const envProblem = dotenvModeProblem(loaded.configDir);
  results.push(
    envProblem ? { check: '.env', status: 'warn', detail: envProblem } : { check: '.env', status: 'ok', detail: 'absent, or readable by its owner only' },
  );
  results.push(...(await gatewayChecks(loaded)));
  results.push(await storeCheck(loaded));

  // The run file is the whole gateway's, in the config dir itself: one gateway serves every profile.
  const running = readRunFile(choice.rootDir);
  if (!running) {
    results.push({ check: 'gateway', status: 'ok', detail: 'not running on this config dir (start it: hookwise gateway run)' });
  } else {
    try {
      const health = await fetch(`${running.url}/health`, { signal: AbortSignal.timeout(5000) });
      results.push({
        check: 'gateway',
        status: health.ok ? 'ok' : 'warn',
        detail: `running (pid ${running.pid}) at ${running.url}: /health answered ${health.status}`,
      });
    } catch (err) {
      results.push({ check: 'gateway', status: 'warn', detail: `pid ${running.pid} at ${running.url} does not answer /health: ${errorMessage(err)}` });
    }
  }
  return results;
}
