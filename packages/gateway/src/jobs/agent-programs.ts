// At startup: each static route's agent program, found as a shell would and its version logged, so that a CLI
// that is not installed stops the gateway (sandbox mode `required`) or is a loud warning with the install command,
// never a dead letter minutes after the first event.
import type { Logger } from 'winston';
import type { AgentProgramCheck, AgentRunner } from '@hookwise/core';
import { HookwiseConfigError, errorMessage } from '@hookwise/core';
import type { Route } from '../routes/routes';
import type { AgentSandboxes } from './agent-sandbox';

export async function checkAgentPrograms(
  routes: readonly Route[],
  agentFor: (route: Route) => Promise<AgentRunner>,
  sandboxes: Pick<AgentSandboxes, 'decisionFor'>,
  logger: Logger,
): Promise<void> {
  const problems: string[] = [];
  const checked = new Map<AgentRunner, Promise<AgentProgramCheck | undefined>>();
  for (const route of routes) {
    const runner = await agentFor(route);
    if (!runner.check) continue;
    if (!checked.has(runner))
      checked.set(
        runner,
        runner.check().catch((err: unknown) => ({ program: '?', problem: errorMessage(err) })),
      );
    const found = await checked.get(runner);
    if (!found) continue;
    if (!found.problem) {
      logger.info(`route '${route.name}': agent program ${found.path}${found.version ? ` (${found.version})` : ''}`, { route: route.name });
      continue;
    }
    const line = `route '${route.name}': ${found.problem}`;
    if ((await sandboxes.decisionFor(route)).mode === 'required') problems.push(line);
    else logger.warn(`${line}; every run of this route will fail until then`, { route: route.name });
  }
  if (problems.length) throw new HookwiseConfigError(problems, 'the gateway cannot start');
}
