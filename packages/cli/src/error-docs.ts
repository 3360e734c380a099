// docs/errors.md as it ships with the CLI: every error names `hookwise docs errors <code>`, which reads the page from
// here, so the explanation is at hand wherever the CLI is installed (a clone, a packed tarball, the container image).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the page may be: copied into the package (packed tarballs, the image), or the clone's docs/ beside it. */
export function errorDocsCandidates(packageRoot = join(__dirname, '..')): string[] {
  return [join(packageRoot, 'docs', 'errors.md'), join(packageRoot, '..', '..', 'docs', 'errors.md')];
}

/** The path of the installed docs/errors.md, or undefined when neither place has it. */
export function errorDocsPath(packageRoot?: string): string | undefined {
  return errorDocsCandidates(packageRoot).find((path) => existsSync(path));
}

/** The codes the page has a section for (`## HW_E_...`), in page order. */
export function errorDocCodes(page: string): string[] {
  return [...page.matchAll(/^## (HW_E_[A-Z_]+)\s*$/gm)].map((m) => m[1]);
}

/**
 * The section of one code, heading included, up to the next `## ` heading; undefined for a code the page lacks.
 * The code may be written as the docs link has it (`hw_e_config`) or as errors carry it (`HW_E_CONFIG`).
 */
export function errorDocSection(page: string, code: string): string | undefined {
  const wanted = code.trim().toUpperCase();
  const lines = page.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${wanted}`);
  if (start < 0) return undefined;
  const rest = lines.slice(start + 1).findIndex((line) => line.startsWith('## '));
  const end = rest < 0 ? lines.length : start + 1 + rest;
  return lines.slice(start, end).join('\n').trimEnd();
}

export function readErrorDocs(packageRoot?: string): { path: string; page: string } | undefined {
  const path = errorDocsPath(packageRoot);
  return path === undefined ? undefined : { path, page: readFileSync(path, 'utf8') };
}
