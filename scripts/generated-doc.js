// The tail every doc generator shares: write the file, or with --check write nothing and exit 1 when the file in
// the repository differs from what the generator makes (the tests and CI run the check).
const { readFileSync, writeFileSync } = require('node:fs');
const { relative } = require('node:path');

const ROOT = require('node:path').join(__dirname, '..');

/** Writes `text` to `file`, or checks it under --check; `script` is the command that regenerates it. */
function writeOrCheck(file, text, script, argv = process.argv) {
  const shown = relative(ROOT, file);
  if (argv.includes('--check')) {
    let current;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== text) {
      console.error(`${shown} is out of date: run ${script}`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(file, text);
  console.log(`wrote ${shown}`);
}

module.exports = { writeOrCheck };
