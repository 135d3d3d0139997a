import { randomFillSync } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const SHORT_ID_LENGTH = 10;
/** Real collision checks before giving up; 50 random bits make even one collision rare. */
export const SHORT_ID_ATTEMPTS = 16;

/** Random bytes drawn ahead, 7 per id: one call to the CSPRNG per 512 ids, which a migration sweep mints by the hundred thousand. */
const pool = Buffer.alloc(7 * 512);
let used = pool.length;

/** Ten Crockford base32 characters: 50 random bits. */
export function randomShortId(): string {
  if (used + 7 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  // Two 25-bit halves of the first 50 bits, so the arithmetic stays in small integers.
  const b = pool;
  const o = used;
  used += 7;
  const hi = (b[o]! << 17) | (b[o + 1]! << 9) | (b[o + 2]! << 1) | (b[o + 3]! >> 7);
  const lo = ((b[o + 3]! & 0x7f) << 18) | (b[o + 4]! << 10) | (b[o + 5]! << 2) | (b[o + 6]! >> 6);
  return fiveChars(hi) + fiveChars(lo);
}

/** One 25-bit value as five Crockford characters, most significant first. */
function fiveChars(v: number): string {
  let out = "";
  for (let shift = 20; shift >= 0; shift -= 5) out += CROCKFORD[(v >>> shift) & 31];
  return out;
}

/**
 * `n` random 50-bit short id values, ascending. A sweep that mints an id
 * for every record it visits in rowid order hands these out in order, so
 * its passes insert into the short_id index left to right instead of at
 * random places: each index page is then written about once, where random
 * inserts dirty nearly every page again in every batch (measured over
 * 100,000 records: 0.3 s of a 3 s migration). Each id is still drawn
 * uniformly from the same 50 bits; only which record gets which id follows
 * the visiting order, which the records' creation times tell anyway. The
 * values sit in a shared buffer, so a worker thread taking part in the
 * sweep reads the same list.
 */
export function ascendingShortIdValues(n: number): Float64Array {
  const words = new Uint32Array(2 * n);
  if (n > 0) randomFillSync(words);
  const values = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, n)), 0, n);
  for (let i = 0; i < n; i++) values[i] = (words[2 * i]! & 0x1ffffff) * 0x2000000 + (words[2 * i + 1]! & 0x1ffffff);
  return values.sort();
}

/** The id of a value from ascendingShortIdValues: most significant character first, so text order is value order. */
export function shortIdOfValue(v: number): string {
  return fiveChars(Math.floor(v / 0x2000000)) + fiveChars(v % 0x2000000);
}

/** Hands out `values[from]`, `values[from + 1]`, … up to `to` (exclusive), then random ids. */
export function shortIdsFrom(values: Float64Array, from = 0, to = values.length): () => string {
  let next = from;
  return () => (next < to ? shortIdOfValue(values[next++]!) : randomShortId());
}

export class ShortIdExhaustedError extends Error {
  override readonly name = "ShortIdExhaustedError";
  constructor() {
    super("short id mint exhausted");
  }
}

export async function mintShortId(count: (candidate: string) => Promise<number>): Promise<string> {
  for (let i = 0; i < SHORT_ID_ATTEMPTS; i++) {
    const cand = randomShortId();
    if ((await count(cand)) === 0) return cand;
  }
  throw new ShortIdExhaustedError();
}
