/**
 * Deterministic stand-ins for real embeddings, shared by the vector-index
 * tests and the benchmarks so both measure the same kind of data.
 */

/** A small seeded PRNG: the same seed gives the same data on every run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/**
 * Unit vectors from overlapping clusters in a small latent space, blurred by
 * noise: true top-1 / top-10 cosines come out near 0.65 / 0.55 and random
 * pairs near 0, much like real sentence embeddings.
 */
export function clustered(seed: number, dim: number, latent = 32, clusters = 1000): () => Float32Array {
  const rand = mulberry32(seed);
  const projection = Float64Array.from({ length: latent * dim }, () => gaussian(rand) / Math.sqrt(latent));
  const centres = Float64Array.from({ length: clusters * latent }, () => gaussian(rand));
  const z = new Float64Array(latent);
  return () => {
    const c = Math.floor(rand() * clusters);
    for (let l = 0; l < latent; l++) z[l] = centres[c * latent + l]! + 0.8 * gaussian(rand);
    const v = new Float32Array(dim);
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      let x = 0.5 * gaussian(rand);
      for (let l = 0; l < latent; l++) x += z[l]! * projection[l * dim + d]!;
      v[d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) v[d] = v[d]! / norm;
    return v;
  };
}

/** A seeded pseudo-random vector per record number (a hash of `i`, no state): no two records share one, and every run sees the same. */
export function seededVector(i: number, dim: number): Float32Array {
  let seed = (i + 1) * 2654435761;
  const v = new Float32Array(dim);
  for (let d = 0; d < dim; d++) {
    seed = (seed ^ (seed >>> 15)) * 2246822519;
    seed = (seed ^ (seed >>> 13)) * 3266489917;
    v[d] = ((seed ^ (seed >>> 16)) >>> 0) / 4294967296 - 0.5;
  }
  return v;
}
