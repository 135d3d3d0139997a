const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A well-formed UUID takes the fast path: no lookup, authorization decides later. */
export function isUuid(input: string): boolean {
  return UUID_SHAPE.test(input);
}
