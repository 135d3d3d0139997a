/** Live records asked about to guess how selective a filter is. */
export const SELECTIVITY_PROBES = 512;
const GOLDEN = 0.6180339887498949;

/** A filter's admitted share (a low reading of it: see probeShare), once probed. */
export type ShareCell = { share?: number };

/**
 * A low reading of the share of live records `allow` admits, from a spread
 * of SELECTIVITY_PROBES of the slots (`slotKey`, -1 for a free slot): about
 * two standard deviations below what the sample shows, so a walk sized by it
 * rarely comes up short.
 */
export function probeShare(slotKey: ArrayLike<number>, highWater: number, allow: (key: number) => boolean): number {
  const probes = Math.min(SELECTIVITY_PROBES, highWater);
  let seen = 0;
  let admitted = 0;
  for (let i = 0; i < probes; i++) {
    // Golden-ratio steps spread the probes without a period, so a filter
    // that admits every tenth slot is not sampled in lockstep with it.
    const key = slotKey[Math.floor(((i * GOLDEN) % 1) * highWater)]!;
    if (key < 0) continue;
    seen++;
    if (allow(key)) admitted++;
  }
  return seen === 0 ? 0 : Math.max(0, admitted - 2 * Math.sqrt(admitted)) / seen;
}
