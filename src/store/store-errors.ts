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
