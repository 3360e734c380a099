// `terminal.allow`: whole commands, not prefixes. An entry is a program and its argument patterns,
// each a literal word or `*` (exactly one plain argument); a final `**` allows any number of further plain
// arguments. A command is checked as the words /bin/sh would see, and refused when it could mean more than
// those words: shell operators, substitutions, quotes, globs, and arguments naming a path outside the work dir
// (`cat /home/x/.env`, `git log --output=<config_dir>/webhook_subscriptions.json`, `sort -o/x`), symlinks followed.
//
// The old prefix form (`"git log"` allowed `git log` followed by anything, so `cat README.md` let `cat README.md
// .env` through) has no implicit meaning any more: `"git log"` allows exactly `git log`; write `"git log **"`
// for the old breadth.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** What a plain word may hold: letters, digits and . _ - / : = @ % + , (no quotes, globs, ~, $ or operators). */
const PLAIN_WORD = /^[A-Za-z0-9._\-/:=@%+,]+$/;
const ANY_ONE = '*';
const ANY_REST = '**';

/** Problems with the entries of terminal.allow (config errors at startup). */
export function allowProblems(allow: readonly string[]): string[] {
  const problems: string[] = [];
  for (const entry of allow) {
    const words = entry.trim().split(/\s+/);
    const bad = words.filter((w, i) => !(PLAIN_WORD.test(w) || (i > 0 && w === ANY_ONE) || (i === words.length - 1 && i > 0 && w === ANY_REST)));
    if (bad.length)
      problems.push(
        `${JSON.stringify(entry)}: ${bad.map((w) => JSON.stringify(w)).join(', ')} is not a plain word, \`*\` (one argument) or a final \`**\` (any number); entries are whole commands like "git log *" or "ls"`,
      );
  }
  return problems;
}

/** Why `command` is refused under `allow`, run in `workDir`; undefined when it may run. */
export function allowRefusal(command: string, allow: readonly string[], workDir: string): string | undefined {
  const words = command.trim().split(/[ \t]+/);
  const odd = words.find((w) => !PLAIN_WORD.test(w));
  if (odd !== undefined)
    return `${JSON.stringify(odd)} is not a plain word: terminal.allow permits one command of plain words (letters, digits and . _ - / : = @ % + ,), without shell operators, quotes, globs or substitutions`;
  const outside = words.slice(1).find((w) => leavesWorkDir(w, workDir));
  if (outside !== undefined)
    return `${JSON.stringify(outside)} names a path outside the work directory (${workDir}); terminal.allow permits only paths inside it`;
  if (allow.some((entry) => matches(words, entry.trim().split(/\s+/)))) return undefined;
  return `the command matches none of terminal.allow (${allow.map((p) => JSON.stringify(p)).join(', ')}): each is a whole command, \`*\` one argument, a final \`**\` any number`;
}

function matches(words: readonly string[], pattern: readonly string[]): boolean {
  const rest = pattern[pattern.length - 1] === ANY_REST;
  const fixed = rest ? pattern.slice(0, -1) : pattern;
  if (rest ? words.length < fixed.length : words.length !== fixed.length) return false;
  return fixed.every((p, i) => p === words[i] || (p === ANY_ONE && i > 0));
}

/**
 * An argument that names a path resolving outside the work dir. Every word counts as a path (`cat env-link` with
 * env-link -> ~/.env), and so do an option's attached values (`--output=/x`, `-o/x`, `-xo/x`: every tail after the
 * dashes). Each is resolved as the command would open it, links followed (realpath; for a file not made yet, its
 * parent resolved and a dangling link's target followed), so a symlink in the work dir leads nowhere else.
 */
function leavesWorkDir(word: string, workDir: string): boolean {
  const root = realPath(resolve(workDir));
  // Joined, not resolve()d: `link/../x` must climb from where the link leads, as the kernel does.
  return pathsIn(word).some((value) => !isWithin(realPath(isAbsolute(value) ? value : `${root}/${value}`), root));
}

/** The word, what follows each `=`, and for an option every tail after its dashes. */
function pathsIn(word: string): string[] {
  const candidates = new Set([word]);
  for (let at = word.indexOf('='); at >= 0; at = word.indexOf('=', at + 1)) candidates.add(word.slice(at + 1));
  const dashes = /^-+/.exec(word)?.[0].length ?? 0;
  if (dashes > 0) for (let i = dashes; i < word.length; i += 1) candidates.add(word.slice(i));
  return [...candidates].filter((value) => value !== '');
}

/** Where `path` (absolute) leads: symlinks followed, also for a path whose last parts do not exist yet. */
function realPath(path: string, depth = 0): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Not there (or unreadable): resolve what exists above it, then follow a dangling link by hand.
  }
  const parent = dirname(path);
  if (parent === path || depth > 40) return path;
  const realParent = realPath(parent, depth + 1);
  const full = join(realParent, basename(path));
  try {
    if (lstatSync(full).isSymbolicLink()) {
      const target = readlinkSync(full);
      return realPath(isAbsolute(target) ? target : `${realParent}/${target}`, depth + 1);
    }
  } catch {
    // Nothing there: a file the command may create.
  }
  return full;
}

function isWithin(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
