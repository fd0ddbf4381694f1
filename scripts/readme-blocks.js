// @ts-check
'use strict';
/**
 * The README's runnable blocks: a ```sh fence right after a `<!-- README block "NAME": … -->` line.
 * The quick-start check and the walk-through's end-to-end test run them from here, so what CI proves
 * is what the README says, word for word.
 *
 * `node scripts/readme-blocks.js NAME…` prints the named blocks, in order, for `bash -e` to run.
 */
const { readFileSync } = require('node:fs');
const path = require('node:path');

const README = path.resolve(__dirname, '..', 'README.md');

/**
 * The code of the block named `name` (without its fences).
 * @param {string} name
 * @param {string} [readme] the README's text (tests pass their own)
 * @returns {string}
 */
function readmeBlock(name, readme = readFileSync(README, 'utf8')) {
  const lines = readme.split('\n');
  const marker = lines.findIndex((line) => line.startsWith(`<!-- README block "${name}":`));
  if (marker < 0) throw new Error(`README.md has no block named "${name}"`);
  if (lines[marker + 1] !== '```sh') throw new Error(`README.md's block "${name}" must be a \`\`\`sh fence right after its marker`);
  const end = lines.indexOf('```', marker + 2);
  if (end < 0) throw new Error(`README.md's block "${name}" is not closed`);
  return lines.slice(marker + 2, end).join('\n') + '\n';
}

module.exports = { readmeBlock };

if (require.main === module) {
  const names = process.argv.slice(2);
  if (names.length === 0) {
    process.stderr.write('usage: node scripts/readme-blocks.js NAME…   (the names in README.md\'s <!-- README block "NAME" --> markers)\n');
    process.exit(2);
  }
  try {
    process.stdout.write(names.map((name) => readmeBlock(name)).join('\n'));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
