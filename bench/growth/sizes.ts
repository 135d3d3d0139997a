/**
 * The store sizes the growth curve visits, smallest first:
 * ENGRAM_BENCH_GROWTH_SIZES (comma-separated whole numbers, e.g. "2000,20000"
 * for a quick run), else 10,000, 100,000 and 1,000,000.
 */
export const DEFAULT_GROWTH_SIZES = [10_000, 100_000, 1_000_000] as const;

export function growthSizes(env: NodeJS.ProcessEnv = process.env): number[] {
  const raw = env.ENGRAM_BENCH_GROWTH_SIZES?.trim();
  if (!raw) return [...DEFAULT_GROWTH_SIZES];
  const sizes = raw.split(",").map((s) => Number(s.trim().replace(/_/g, "")));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("ENGRAM_BENCH_GROWTH_SIZES must be comma-separated whole numbers of at least 1");
  for (let i = 1; i < sizes.length; i++) {
    if (sizes[i]! <= sizes[i - 1]!) throw new Error("ENGRAM_BENCH_GROWTH_SIZES must grow from one size to the next");
  }
  return sizes;
}

/** "10k", "1M", "2,500" as the tables label a size. */
export function sizeLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return n.toLocaleString("en-US");
}
