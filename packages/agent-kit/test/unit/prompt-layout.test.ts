// The prompt's layout for a provider's prompt cache: what every run of a route shares comes first (the system text,
// the tools' rules, the skills), what differs per run last (a sandboxed run's own copy of its skills' files), so that
// the route's runs share the longest prefix.
import { buildSystemPrompt, buildSystemPromptParts, formatSkills } from '@hookwise/agent-kit';
import type { Skill } from '@hookwise/core';

/** The route's skills as a sandboxed run sees them: copied into the run's own work dir. */
const stagedIn = (workDir: string): Skill[] => [
  { name: 'code-review', description: 'Review a pull request', body: 'Point out bugs first.', dir: `${workDir}/.hookwise-skills-x/code-review` },
  { name: 'triage', description: 'Label an issue', body: 'Pick one label.', dir: `${workDir}/.hookwise-skills-x/triage` },
  { name: 'built-in', description: 'Comes with the gateway', body: 'No files of its own.' },
];

/** The length of the text two prompts start with. */
function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

describe('prompt layout for the prompt cache', () => {
  it("puts every skill's description and body before the run's skill directories, so two runs differ only after them", () => {
    const one = formatSkills(stagedIn('/tmp/hookwise-job-AAAA'));
    const two = formatSkills(stagedIn('/tmp/hookwise-job-BBBB'));
    const shared = one.slice(0, sharedPrefix(one, two));
    for (const text of ['Point out bugs first.', 'Pick one label.', 'No files of its own.', 'description: Label an issue']) expect(shared).toContain(text);
    expect(one.slice(shared.length)).not.toContain('</skill>');
    expect(one).toContain('- code-review: /tmp/hookwise-job-AAAA/.hookwise-skills-x/code-review\n- triage: /tmp/hookwise-job-AAAA/.hookwise-skills-x/triage');
    expect(one).not.toContain('built-in: ');
  });

  it("splits the API runners' system prompt into the part a route's runs share and the run's own", () => {
    const tools = { mcpServers: ['tracker'] };
    const one = buildSystemPromptParts(stagedIn('/tmp/hookwise-job-AAAA'), tools);
    const two = buildSystemPromptParts(stagedIn('/tmp/hookwise-job-BBBB'), tools);
    expect(one.stable).toBe(two.stable);
    expect(one.stable).toContain('Pick one label.');
    expect(one.perRun).toContain('/tmp/hookwise-job-AAAA/');
    expect(one.stable).not.toContain('/tmp/hookwise-job-AAAA/');
    expect(buildSystemPrompt(stagedIn('/tmp/hookwise-job-AAAA'), tools)).toBe(`${one.stable}\n\n${one.perRun}`);
  });

  it('has no per-run part when no skill comes from disk', () => {
    const parts = buildSystemPromptParts([{ name: 'built-in', description: 'd', body: 'b' }], {});
    expect(parts.perRun).toBe('');
    expect(formatSkills([])).toBe('');
  });
});
