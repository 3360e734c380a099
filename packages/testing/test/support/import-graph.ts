// The import graph of the repository's sources (packages/*/src, plugins/*/src), read with TypeScript's own
// pre-processor: `import` and `export ... from` (type-only ones too), `require()` and `import()`. Only relative
// imports are arrows here: the package arrows are eslint's (import-rules.test.ts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Each source file (relative to the root, '/'-separated) and the files it imports. */
  arrows: Map<string, string[]>;
}

function sourcesUnder(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourcesUnder(path, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

export function importGraph(root: string): ImportGraph {
  const files: string[] = [];
  for (const top of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(root, top))) {
      const src = join(root, top, pkg, 'src');
      if (existsSync(src)) sourcesUnder(src, files);
    }
  }
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const arrows = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map((i) => resolveImport(file, i.fileName)).filter((t): t is string => t !== undefined);
    arrows.set(rel(file), [...new Set(targets.map(rel))]);
  }
  return { arrows };
}

/** Every import circle (Tarjan's strongly connected components of more than one file, or a file importing itself). */
export function importCircles({ arrows }: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of arrows.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1 || (arrows.get(file) ?? []).includes(file)) circles.push(circle.sort());
  };
  for (const file of arrows.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/**
 * The imports between folders of one package's src that break its layers: `layers` lists the folders from the
 * ground up (folders on one line are siblings, which never import each other; '.' is the src folder's own files).
 * An import may only go down. Folders that no layer names are reported too, so a new folder is a decision.
 */
export function layerBreaks({ arrows }: ImportGraph, src: string, layers: string[][]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((folders, i) => folders.forEach((folder) => rank.set(folder, i)));
  const folderOf = (file: string) => {
    const inside = file.slice(src.length + 1);
    return inside.includes('/') ? inside.slice(0, inside.indexOf('/')) : '.';
  };
  const breaks: string[] = [];
  for (const [file, targets] of arrows) {
    if (!file.startsWith(`${src}/`)) continue;
    const from = folderOf(file);
    if (!rank.has(from)) breaks.push(`${file}: its folder '${from}' is in no layer`);
    for (const target of targets) {
      if (!target.startsWith(`${src}/`)) continue;
      const to = folderOf(target);
      if (to === from || !rank.has(from) || !rank.has(to)) continue;
      if (rank.get(to)! >= rank.get(from)!) breaks.push(`${file} -> ${target} (${from} may not import ${to})`);
    }
  }
  return breaks;
}
