#!/usr/bin/env node
// Writes the tables of docs/platforms.md that list the deliverers (names, the SPEC's names, target formats and
// limits) from the first-party deliverers' manifests (package.json `hookwise`) and the "At a glance" row of their
// READMEs, so that a new platform appears there without editing the guide; the prose around them stays hand-written.
// packages/gateway/test/platforms-doc.test.ts compares the committed file.
// Usage: node scripts/platforms-doc.js   (writes the file; --check only compares)
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { contributions } = require('./plugin-manifests');

const ROOT = join(__dirname, '..');
const GLANCE_HEADER = '| Platform | Target format | `max_parts` | Pacing per chat |';

/** The README's "At a glance" row as cells, or undefined (the comment deliverers have none). */
function glanceOf(readme) {
  const lines = readme.split('\n');
  const at = lines.indexOf(GLANCE_HEADER);
  if (at === -1) return undefined;
  const cells = lines[at + 2]
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
  return { platform: cells[0], targets: cells[1], maxParts: cells[2], pacing: cells[3] };
}

/** The SPEC's numbered platforms first, in their order, then the others by id. */
function deliverers(root = ROOT) {
  const number = (c) => Number(/^platform_(\d+)$/.exec(c.aliases.find((a) => /^platform_\d+$/.test(a)) ?? '')?.[1] ?? Infinity);
  return contributions('deliverer', root)
    .sort((a, b) => number(a) - number(b) || a.id.localeCompare(b.id))
    .map((c) => ({ ...c, glance: glanceOf(readFileSync(join(root, c.dir, 'README.md'), 'utf8')) }));
}

const code = (text) => `\`${text}\``;

function tables(root = ROOT) {
  const list = deliverers(root);
  const names = list.map(
    (d) => `| ${code(d.id)} | ${d.aliases.length ? d.aliases.map(code).join(', ') : '—'} | ${d.glance?.platform ?? d.pkg.description} | ${code(d.package)} |`,
  );
  const aliases = list.flatMap((d) => d.aliases.map((alias) => `| ${code(alias)} | ${code(d.id)} |`));
  // A deliverer without parts (one comment, one note) has no row here: its README says `—`.
  const limits = list
    .filter((d) => d.glance && d.glance.maxParts !== '—')
    .map((d) => `| ${code(d.id)} | ${d.glance.targets} | ${d.glance.maxParts} | ${d.glance.pacing} |`);
  return {
    names: ['| Real name | Old name (alias) | Platform | Package |', '|---|---|---|---|', ...names],
    aliases: ['| Old name | Real name |', '|---|---|', ...aliases],
    limits: ['| Name | Target format | `max_parts` | Pacing per chat |', '|---|---|---|---|', ...limits],
  };
}

/** docs/platforms.md with each `<!-- generated: <table> -->` ... `<!-- end generated -->` region rewritten. */
function render(root = ROOT, text = readFileSync(join(root, 'docs', 'platforms.md'), 'utf8')) {
  const generated = tables(root);
  const seen = new Set();
  const out = text.replace(/(<!-- generated: (\w+) by scripts\/platforms-doc\.js[^>]*-->\n)[\s\S]*?(<!-- end generated -->)/g, (_, open, name, close) => {
    if (!generated[name]) throw new Error(`docs/platforms.md: no table called '${name}'`);
    seen.add(name);
    return `${open}${generated[name].join('\n')}\n${close}`;
  });
  const missing = Object.keys(generated).filter((name) => !seen.has(name));
  if (missing.length) throw new Error(`docs/platforms.md has no region for the table(s) ${missing.join(', ')}`);
  return out;
}

if (require.main === module) require('./generated-doc').writeOrCheck(join(ROOT, 'docs', 'platforms.md'), render(), 'node scripts/platforms-doc.js');

module.exports = { deliverers, glanceOf, render, tables };
