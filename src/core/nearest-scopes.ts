/**
 * The caller's scopes nearest to one that holds nothing, for the hint a
 * client shows beside an empty answer ("repo:dmeo" → "repo:demo"). Advice
 * only: the wire contract answers an empty scope with an empty list, and
 * nothing here is ever a refusal.
 */

/** Edit distance with adjacent swaps (optimal string alignment), capped: past `cap` the exact number does not matter. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      best = Math.min(best, d);
    }
    if (best > cap) return cap + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Up to `max` of `scopes` within a third of the typed scope's length in
 * edits (at least 2), nearest first, ties in the order given; none when the
 * typed scope is itself among them.
 */
export function nearestScopes(typed: string, scopes: readonly string[], max = 3): string[] {
  if (typed === "" || scopes.includes(typed)) return [];
  const cap = Math.max(2, Math.floor(typed.length / 3));
  return scopes
    .map((scope, at) => ({ scope, at, d: distance(typed.toLowerCase(), scope.toLowerCase(), cap) }))
    .filter((c) => c.d <= cap)
    .sort((x, y) => x.d - y.d || x.at - y.at)
    .slice(0, max)
    .map((c) => c.scope);
}
