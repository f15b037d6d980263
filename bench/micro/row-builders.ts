// npx tsx bench/micro/row-builders.ts: what the SQLite direct reader's row builder costs, side by
// side in one process (decision 340). The authentication lookup's statement (24 columns) on a
// table of 10,000 sessions, read by its hash: better-sqlite3's own row objects, raw rows made
// into objects by a loop over the names, and raw rows made into objects by a literal generated
// once per statement (new Function). Rounds alternate, so the machine's drift touches all alike.
import SQLite from 'better-sqlite3';

const db = new SQLite(':memory:');
const columns = Array.from({ length: 24 }, (_, i) => `c${i}`);
db.exec(`create table t (hash text primary key, ${columns.map((c) => `${c} text`).join(', ')})`);
const insert = db.prepare(`insert into t values (?, ${columns.map(() => '?').join(', ')})`);
for (let i = 0; i < 10_000; i++) insert.run(`h${i}`, ...columns.map((c) => `${c}-${i}`));
const text = `select ${columns.join(', ')} from t where hash = ?`;

const objects = db.prepare(text);
const rawLoop = db.prepare(text).raw(true);
const rawLiteral = db.prepare(text).raw(true);
const names = rawLoop.columns().map((column) => column.name);
const byLoop = (values: unknown[]) => {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
  return row;
};
const byLiteral = new Function('v', `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as (values: unknown[]) => object;

const ways: Record<string, (hash: string) => object> = {
  'object rows (better-sqlite3)': (hash) => objects.get(hash) as object,
  'raw rows, loop over names': (hash) => byLoop(rawLoop.get(hash) as unknown[]),
  'raw rows, generated literal': (hash) => byLiteral(rawLiteral.get(hash) as unknown[]),
};
const N = 200_000;
const totals: Record<string, number[]> = {};
let sink = 0;
for (let round = 0; round < 7; round++) {
  for (const [name, read] of Object.entries(ways)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) sink += Object.keys(read(`h${i % 10_000}`)).length;
    (totals[name] ??= []).push(Number(process.hrtime.bigint() - start) / N);
  }
}
for (const [name, times] of Object.entries(totals)) {
  const sorted = [...times.slice(1)].sort((a, b) => a - b);
  console.log(`${name.padEnd(32)} median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} µs per read`);
}
if (sink === 0) console.log('');
