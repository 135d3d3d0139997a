import { performance } from "node:perf_hooks";

/** Wall time, and this process's CPU time (every thread): on a shared machine the gap between the two is other people's work. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const result = await fn();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { result, ms, cpuMs: (used.user + used.system) / 1000 };
}
