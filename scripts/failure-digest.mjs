#!/usr/bin/env node
// Reads a `node --test` TAP log and prints each failure with its error, in the order they ran,
// so the end of a CI log says why it failed without scrolling back through it.
// Tests cancelled because their suite failed are counted, not listed: their suite is.
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2] ?? 0, 'utf8').split('\n');
const failures = [];
let cancelled = 0;
for (let i = 0; i < lines.length; i++) {
  const match = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
  if (!match) continue;
  const indent = match[1].length;
  const details = {};
  // The YAML block that follows: "  ---" ... "  ...", two spaces deeper than the test line.
  for (let j = i + 1; j < lines.length && !/^\s*\.\.\.$/.test(lines[j]) && !/^\s*(not )?ok \d+/.test(lines[j]); j++) {
    const field = /^\s*(failureType|error|location):\s*(.*)$/.exec(lines[j]);
    if (field && !(field[1] in details)) {
      let value = field[2];
      // Multi-line values ("|-") continue on the deeper-indented lines after.
      if (value === '|-' || value === '>-') {
        const body = [];
        while (lines[j + 1] !== undefined && lines[j + 1].search(/\S/) > indent + 2) body.push(lines[++j].trim());
        value = body.join(' ');
      }
      details[field[1]] = value.replace(/^'(.*)'$/, '$1');
    }
  }
  if (details.failureType === 'cancelledByParent') cancelled++;
  else if (details.failureType !== 'subtestsFailed') failures.push({ name: match[2], ...details });
}
if (failures.length || cancelled) {
  console.log(`\n== ${failures.length} failure(s)${cancelled ? `, ${cancelled} test(s) cancelled by a failed suite` : ''} ==`);
  for (const f of failures) {
    console.log(`\n✗ ${f.name}${f.failureType ? ` (${f.failureType})` : ''}`);
    if (f.location) console.log(`  at ${f.location}`);
    if (f.error) console.log(`  ${f.error.slice(0, 2000)}`);
  }
}
