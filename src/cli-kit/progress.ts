import { usageError } from "./failure.js";

/**
 * Progress of a long write loop, on stderr only and never on stdout (which
 * carries the one report document).
 *
 * - stderr is a terminal: one line, rewritten in place at most ten times a
 *   second, ended with a newline when the loop ends.
 * - stderr is not a terminal: nothing, so logs and CI output stay clean.
 * - ENGRAM_PROGRESS=always: plain lines even without a terminal (the first
 *   batch at once, then at most one a second, then the final count), for
 *   scripts and tests that want to watch a run. ENGRAM_PROGRESS=never
 *   silences it on a terminal too; `auto` (or unset) is the default.
 */

export type ProgressMode = "tty" | "lines" | "off";

export function progressMode(env: NodeJS.ProcessEnv = process.env, isTTY = process.stderr.isTTY === true): ProgressMode {
  const v = (env.ENGRAM_PROGRESS ?? "").trim().toLowerCase();
  if (v === "always") return "lines";
  if (v === "never") return "off";
  if (v !== "" && v !== "auto") throw usageError("ENGRAM_PROGRESS must be auto, always or never");
  return isTTY ? "tty" : "off";
}

/**
 * The mode of a run that writes only with --apply. The setting is checked
 * the same way for a preview as for an apply, so a preview never accepts
 * what the apply would refuse; a preview writes nothing and shows no progress.
 */
export function progressFor(apply: boolean): ProgressMode {
  const mode = progressMode();
  return apply ? mode : "off";
}

/** `migrated 1024/10000 (512/s)`: done of total, and the rate since the loop started. */
export function progressText(verb: string, done: number, total: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  return `${verb} ${done}/${total} (${rate}/s)`;
}

export class ProgressReporter {
  private readonly started: number;
  private lastAt = Number.NEGATIVE_INFINITY;
  private lastText = "";
  private shown = false;
  private total: number | undefined;

  constructor(
    private readonly mode: ProgressMode,
    private readonly verb: string,
    private readonly write: (s: string) => void = (s) => void process.stderr.write(s),
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /**
   * One call per committed batch. `backlog` is what was left when the pass
   * began, so the first pass fixes the total the run is working through.
   */
  update(done: number, backlog: number): void {
    if (this.mode === "off") return;
    this.total ??= backlog;
    if (done > this.total) this.total = done;
    const t = this.now();
    const text = progressText(this.verb, done, this.total, t - this.started);
    this.lastText = text;
    const every = this.mode === "tty" ? 100 : 1000;
    if (this.shown && t - this.lastAt < every) return;
    this.emit(text);
    this.lastAt = t;
  }

  /** The final count (if not already on screen), and the newline that ends a terminal line. */
  finish(): void {
    if (this.mode === "off" || this.lastText === "") return;
    if (this.mode === "tty") {
      this.emit(this.lastText);
      this.write("\n");
    } else if (this.printed !== this.lastText) {
      this.emit(this.lastText);
    }
  }

  private printed = "";

  private emit(text: string): void {
    this.shown = true;
    this.printed = text;
    if (this.mode === "tty") this.write(`\rengram: ${text}\x1b[K`);
    else this.write(`engram: ${text}\n`);
  }
}
