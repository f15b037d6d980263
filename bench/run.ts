// npm run bench: runs every benchmark scenario in turn and prints one table per scenario.
// A scenario is a module exporting a BenchScenario; add new ones to the list below.
import { signalsScenario } from './signals.js';
import type { BenchScenario } from './types.js';

const scenarios: BenchScenario[] = [signalsScenario];

const only = process.argv.slice(2);
for (const scenario of scenarios) {
  if (only.length && !only.includes(scenario.name)) continue;
  const started = performance.now();
  console.log(`\n## ${scenario.name}: ${scenario.description}\n`);
  const result = await scenario.run((line) => console.log(`  … ${line}`));
  console.log('');
  const width = Math.max(...result.rows.map((r) => r[0].length), 6);
  console.log(`| ${'metric'.padEnd(width)} | value |`);
  console.log(`|${'-'.repeat(width + 2)}|-------|`);
  for (const [metric, value] of result.rows) console.log(`| ${metric.padEnd(width)} | ${value} |`);
  for (const note of result.notes ?? []) console.log(`\n${note}`);
  console.log(`\n(${scenario.name} took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
