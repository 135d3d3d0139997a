/** Raised by Store.supersede when, under the write lock, a target is gone or no longer the caller's. */
export class TargetsGoneError extends Error {
  override readonly name = "TargetsGoneError";
}

/** Raised by Store.supersede when, under the write lock, targets already carry superseded_by. */
export class TargetsSupersededError extends Error {
  override readonly name = "TargetsSupersededError";
  constructor(readonly ids: readonly string[]) {
    super("targets already superseded");
  }
}

/**
 * Raised by Store.replace when the stored record is not the one the caller
 * read: another writer (a second server, an operator verb, a sweep) changed
 * it since, or deleted it (`gone`). Nothing was written.
 */
export class RevisionConflictError extends Error {
  override readonly name = "RevisionConflictError";
  constructor(
    readonly id: string,
    readonly gone: boolean,
  ) {
    super(gone ? "record gone since it was read" : "record changed since it was read");
  }
}

/** Raised by Store.supersede when the new record's id is already taken (a keyed retry or a keyed race). Nothing was written. */
export class RecordExistsError extends Error {
  override readonly name = "RecordExistsError";
  constructor(readonly id: string) {
    super("record id already taken");
  }
}
