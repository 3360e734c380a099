// Skills in the Agent Skills format: `<dir>/<name>/SKILL.md` with YAML front matter (name, description).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Skills shipped with Hookwise (e.g. webhook-subscriptions); user skills of the same name win. */
export const BUILTIN_SKILLS_DIR = join(__dirname, '..', '..', 'skills');
import type { Skill } from '@hookwise/core';
import { HookwiseError, errorMessage } from '@hookwise/core';

export interface SkillLibrary {
  get(name: string): Skill | undefined;
  list(): Skill[];
}

/** Splits `---\nfront matter\n---\nbody`; a file without front matter has an empty one. */
export function parseSkillFile(text: string, fallbackName: string, dir?: string): Skill {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  let meta: Record<string, unknown> = {};
  let body = text;
  if (match) {
    // Required on the first skill with front matter, not when @hookwise/core is imported.
    const { parse: parseYaml } = require('yaml') as typeof import('yaml');
    try {
      meta = (parseYaml(match[1]) as Record<string, unknown>) ?? {};
    } catch (err) {
      throw new HookwiseError('HW_E_SKILL', `skill '${fallbackName}' has front matter that does not parse: ${errorMessage(err)}`);
    }
    body = match[2];
  }
  return {
    name: typeof meta.name === 'string' ? meta.name : fallbackName,
    description: typeof meta.description === 'string' ? meta.description : '',
    body: body.trim(),
    dir,
  };
}

/**
 * Reads skills from several directories; earlier directories win on a name clash (so the config dir's
 * `skills/` can override a built-in skill).
 */
export class DirectorySkillLibrary implements SkillLibrary {
  private readonly skills = new Map<string, Skill>();
  readonly problems: string[] = [];

  constructor(readonly dirs: string[]) {
    for (const dir of dirs) {
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        const file = join(dir, entry.name, 'SKILL.md');
        if (!existsSync(file) || this.skills.has(entry.name)) continue;
        try {
          const skill = parseSkillFile(readFileSync(file, 'utf8'), entry.name, join(dir, entry.name));
          this.skills.set(entry.name, { ...skill, name: entry.name });
        } catch (err) {
          this.problems.push(errorMessage(err));
        }
      }
    }
  }

  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }

  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
