import { EmbedderError } from "./embedder-error.js";

/**
 * Copies `values` into a Float32Array scaled to unit length. Throws on a
 * wrong length, a non-finite component or a zero vector: none of those can
 * be stored meaningfully.
 */
export function toUnitVector(values: ArrayLike<number>, dim: number, source: string): Float32Array {
  if (values.length !== dim) {
    throw new EmbedderError(`${source} returned a ${values.length}-dimensional vector, expected ${dim}`);
  }
  let sumSq = 0;
  for (let i = 0; i < dim; i++) {
    const v = values[i] as number;
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new EmbedderError(`${source} returned a vector with a non-finite component`);
    }
    sumSq += v * v;
  }
  const norm = Math.sqrt(sumSq);
  if (norm === 0) {
    throw new EmbedderError(`${source} returned a zero vector`);
  }
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = (values[i] as number) / norm;
  return out;
}
