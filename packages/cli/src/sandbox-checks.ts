// `hookwise doctor`'s agent sandbox checks: which mode each route's runs get and why (the same
// decision the gateway makes at startup), what the route's runner adds to the sandbox (a preset's private home
// and API hosts), so that a user sees what the agent will reach and lists only what is theirs, and where the
// route's agent program was found, with its version.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import type { AgentProgramCheck, AgentSandboxMode, AgentSandboxNeeds } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { Gateway, Route } from '@hookwise/gateway';
import type { CheckResult } from './tool-checks';

/** One check per route (or one for the global block without routes): its sandbox mode and the runner's needs. */
export async function sandboxChecks(gateway: Gateway, routes: readonly Route[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const route of routes.length ? routes : [undefined]) {
    const check = route ? `sandbox of route '${route.name}'` : 'agent sandbox';
    let decision;
    try {
      decision = await gateway.sandboxes.decisionFor(route);
    } catch (err) {
      results.push({
        check,
        status: 'fail',
        detail: errorMessage(err),
        fix: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or set agent.sandbox.mode: auto',
      });
      continue;
    }
    let needs: AgentSandboxNeeds | undefined;
    let program: AgentProgramCheck | undefined;
    try {
      const runner = await gateway.agentFor(route ?? { name: '(global)' });
      needs = runner.sandboxNeeds?.(route?.name);
      program = await runner.check?.();
    } catch {
      // A runner that cannot be created is reported by the agent and route checks.
    }
    if (program) results.push(programCheck(route ? `agent program of route '${route.name}'` : 'agent program', program, decision.mode));
    const added = needsText(needs);
    const detail = `mode ${decision.mode}: ${decision.reason}${added ? `; the runner adds ${added}` : ''}`;
    if (decision.sandboxed) results.push({ check, status: 'ok', detail });
    else if (decision.mode === 'off')
      results.push({ check, status: 'warn', detail, fix: 'agent.sandbox.mode: auto runs the agent in a sandbox where bubblewrap works (docs/agents.md)' });
    else results.push({ check, status: 'warn', detail, fix: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)' });
  }
  return results;
}

/** Where the route's agent program was found and its version, or what is missing (fails where the gateway would not start). */
function programCheck(check: string, found: AgentProgramCheck, mode: AgentSandboxMode): CheckResult {
  if (!found.problem) return { check, status: 'ok', detail: `${found.path}${found.version ? ` (${found.version})` : ''}` };
  return {
    check,
    status: mode === 'required' ? 'fail' : 'warn',
    detail: found.problem,
    fix: 'install the CLI for the user the gateway runs as, or give its absolute path in agent.command (docs/agents.md, "How the CLI is found")',
  };
}

/** "network api.anthropic.com; writable ~/.claude (found), ~/.claude.json (missing)". */
function needsText(needs: AgentSandboxNeeds | undefined): string {
  if (!needs) return '';
  const home = homedir();
  const path = (p: string) => `${p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p} (${existsSync(p) ? 'found' : 'missing'})`;
  const parts = [
    needs.network?.length ? `network ${needs.network.join(', ')}` : '',
    needs.readOnly?.length ? `read-only ${needs.readOnly.map(path).join(', ')}` : '',
    needs.writable?.length ? `writable ${needs.writable.map(path).join(', ')}` : '',
    needs.workDir ? `work dir ${needs.workDir}` : '',
  ].filter(Boolean);
  return parts.join('; ');
}
