/**
 * What a configured owner (a static token's, or a stdio session's) may not
 * be: owners are record keys and log fields, so they stay printable and
 * whitespace-free; and the OIDC lanes store a non-email owner as
 * `<len>:<claim>:<len>:<value>`, so a configured owner of that shape could
 * be one of theirs.
 */
export type OwnerShapeProblem = "whitespace" | "namespaced";

/** Whether `owner` has the `<len>:<claim>:…` form the OIDC lanes store a non-email owner in. */
export function isNamespacedOwner(owner: string): boolean {
  return /^\d+:/.test(owner);
}

export function ownerShapeProblem(owner: string): OwnerShapeProblem | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(owner)) return "whitespace";
  if (isNamespacedOwner(owner)) return "namespaced";
  return undefined;
}
