/** The tiers `spine-review verify --fail-on` takes: a file of its own, so the verb tree lists them without loading the verifier. */
export const FAIL_ON = ["broken", "moved", "unverifiable", "any"] as const;
export type FailOn = (typeof FAIL_ON)[number];
