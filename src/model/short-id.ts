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
  let lo = (b[o]! << 17) | (b[o + 1]! << 9) | (b[o + 2]! << 1) | (b[o + 3]! >> 7);
  let hi = ((b[o + 3]! & 0x7f) << 18) | (b[o + 4]! << 10) | (b[o + 5]! << 2) | (b[o + 6]! >> 6);
  let out = "";
  for (let i = 0; i < SHORT_ID_LENGTH / 2; i++, lo >>= 5) out += CROCKFORD[lo & 31];
  for (let i = 0; i < SHORT_ID_LENGTH / 2; i++, hi >>= 5) out += CROCKFORD[hi & 31];
  return out;
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
