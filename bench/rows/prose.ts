/** Realistic English prose of exactly `bytes` bytes (ASCII), varied by `salt` so no cache helps. */
export function prose(bytes: number, salt = 0): string {
  const sentences = [
    "The deployment pipeline builds the service, runs the migrations against a staging copy of the database, and only then promotes the image.",
    "When a migration fails, the pipeline stops and the previous image keeps serving traffic until someone looks at the logs.",
    "Retries use a jittered exponential backoff capped at thirty seconds, because the payment provider throttles bursts.",
    "Tests that touch the clock take an injected now() so they never depend on the machine's time zone.",
    "We keep the signing keys in the vault and rotate them every ninety days; the old key verifies for one more week.",
  ];
  let out = `note ${salt}: `;
  for (let i = salt; out.length < bytes; i++) out += sentences[i % sentences.length] + " ";
  return out.slice(0, bytes);
}
