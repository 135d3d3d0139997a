import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const SHORT_ID_LENGTH = 10;
/** Real collision checks before giving up; 50 random bits make even one collision rare. */
export const SHORT_ID_ATTEMPTS = 16;

/** Ten Crockford base32 characters: 50 random bits. */
export function randomShortId(): string {
  const bytes = randomBytes(7);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < SHORT_ID_LENGTH; i++) {
    out += CROCKFORD[Number(bits & 31n)];
    bits >>= 5n;
  }
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
