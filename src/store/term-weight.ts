/**
 * A term's inverse document frequency, the formula of Qdrant's `idf`
 * sparse-vector modifier: ln((N - n + 0.5) / (n + 0.5) + 1), for n of N
 * records holding the term. The embedded store computes it from its term
 * index so both stores weigh a term alike; it is always positive.
 */
export function termWeight(total: number, withTerm: number): number {
  return Math.log((total - withTerm + 0.5) / (withTerm + 0.5) + 1);
}

/** A cosine as stored floats give it can stray past ±1 by rounding; the score promises [-1, 1]. */
export function clampCosine(score: number): number {
  return score > 1 ? 1 : score < -1 ? -1 : score;
}
