/** One benchmark scenario of `npm run bench` (bench/run.ts). */
export interface BenchScenario<R extends BenchResult = BenchResult> {
  name: string;
  description: string;
  /** Runs the scenario; `progress` prints a line while it runs. */
  run(progress: (line: string) => void): Promise<R>;
}

export interface BenchResult {
  /** [metric, value] rows of the printed table. */
  rows: Array<[string, string]>;
  notes?: string[];
  /** Headline numbers for the summary table of bench/run.ts. */
  metrics?: Record<string, number>;
}

/** The p-th percentile (0-100) of samples, nearest rank. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
