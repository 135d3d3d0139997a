/**
 * The whole stderr of a client verb that listed or searched a scope holding
 * none of the caller's records: one line, naming the nearest of the caller's
 * scopes when there is one close enough.
 */
export const EMPTY_SCOPE_NOTE = /^engram: the scope holds no records you may read(; nearest: [^\n]+)?\n$/;
