/** The longest a Node timer can wait: a longer one (and so a longer AbortSignal.timeout) fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest duration flag, in whole hours, that still fits one timer. */
export const MAX_TIMER_HOURS = Math.floor(MAX_TIMER_MS / 3_600_000);
