// The text a command-line agent receives: the skills block, a separator line, then the rendered prompt.
import { formatSkills } from '@hookwise/agent-kit';
import { type Skill } from '@hookwise/core';

export const SKILLS_SEPARATOR = '\n\n---\n\n';

/** Without skills the prompt goes out unchanged, so simple agent CLIs see exactly the route's template. */
export function composePrompt(prompt: string, skills: readonly Skill[]): string {
  const block = formatSkills(skills);
  return block ? `${block}${SKILLS_SEPARATOR}${prompt}` : prompt;
}
