// A node:test reporter that writes how long each test file took (the sum of its top-level
// suites, in seconds) as JSON: scripts/run-tests.mjs starts the slowest files first with it, so
// the long ones do not start last and stretch the run (test/durations.json).
export default async function* durations(source) {
  const seconds = {};
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = event.data.file.replace(`${process.cwd()}/`, '');
      seconds[file] = (seconds[file] ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000;
    }
  }
  const rounded = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)).map(([file, s]) => [file, Math.round(s * 10) / 10]));
  yield `${JSON.stringify(rounded, null, 1)}\n`;
}
