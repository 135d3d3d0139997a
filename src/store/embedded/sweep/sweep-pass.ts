import type { MemoryRecord } from "../../../model/record.js";
import type { BatchBudget, PassSource, RowRewrite, WriteOutcome } from "../../migrations/migration-store.js";
import type { Payload } from "../../migrations/step.js";
import type { StoreHandle } from "../handle.js";
import type { MigrationStage } from "../migration-stage.js";
import type { Mirror } from "../mirror.js";
import { PreEncoded, type RecordWrites } from "../record-writes.js";
import type { SweepCarry } from "./sweep-carry.js";
import type { SweepCheckpoints } from "./sweep-checkpoints.js";
import { canBeQuiet, mirroredValues } from "./sweep-row.js";

/**
 * One pass of a migration sweep (MigrationStore.rewritePass): a batch of
 * the backlog rewritten in one IMMEDIATE transaction, from what the sweep
 * computed ahead where that is still current, through the one record writer.
 */
export class SweepPass {
  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
    private readonly writes: RecordWrites,
    private readonly checkpoints: SweepCheckpoints,
    private readonly carry: SweepCarry,
  ) {}

  /**
   * A pass writes each row quietly when it can: when the new payload keeps
   * every key another process mirrors or indexes (the MIRRORED_COLUMNS,
   * content, tags, citations) and the write moves the row's schema_version,
   * the UPDATE sets only short_id, schema_version and payload, which fires
   * no trigger: no change-log row (no reader's mirror changes) and no FTS
   * comparison, about a third of a pass. Any other write names every column
   * and is logged and indexed like an ordinary write. The mirrored values are
   * taken (and frozen, so a rewrite cannot edit them in place) before
   * `rewrite` sees the row, so the comparison is by identity.
   */
  async run(source: PassSource, budget: BatchBudget, version: number, rewrite: RowRewrite): Promise<WriteOutcome[]> {
    this.checkpoints.tune();
    type Read = { rid: number; id: string | null; short_id: string | null; schema_version: number | null; payload?: string | null };
    const pinned = "pinnedBelow" in source;
    const staged = this.carry.staged;
    const ahead = !pinned && this.carry.revertAhead?.to === source.above && version === source.above ? this.carry.revertAhead : undefined;
    // No write before the file is known sound; a revert computes rewrites meanwhile.
    while (this.h.alongsidePending && ahead?.sweep.computeNext()) await new Promise<void>((resolve) => setImmediate(resolve));
    await this.h.integrityChecked();
    this.checkpoints.elsewhere();
    if (ahead) await this.carry.readyAhead(ahead);
    const stage = pinned
      ? staged !== undefined && staged.target === source.pinnedBelow && version === staged.target
        ? staged
        : undefined
      : ahead && Number.isFinite(ahead.sweep.seq)
        ? ahead.stage
        : undefined;
    // Pinned: the head of the pending backlog, with rows gone meanwhile (id null) kept so they can be dropped.
    // Above: in the order a revert's worker computes them. With a stage the payload is read only for the rows computed afresh.
    const read = pinned
      ? this.h.stmt(`SELECT q.rid, r.id, r.short_id, r.schema_version${stage ? "" : ", r.payload"} FROM temp.migrate_pending q
          LEFT JOIN records r ON r.rid = q.rid ORDER BY q.rid LIMIT ?`)
      : this.h.stmt(`SELECT rid, id, short_id, schema_version${stage ? "" : ", payload"} FROM records WHERE schema_version > ? ORDER BY schema_version, rid LIMIT ?`);
    const payloadOf = this.h.stmt("SELECT payload AS rewrite_source FROM records WHERE rid = ?").pluck();
    const drop = pinned ? this.h.stmt("DELETE FROM temp.migrate_pending WHERE rid = ?") : undefined;
    const dropRange = pinned ? this.h.stmt("DELETE FROM temp.migrate_pending WHERE rid >= ? AND rid <= ?") : undefined;
    const outcomes: WriteOutcome[] = [];
    const known = this.carry.aboveCount;
    this.carry.aboveCount = undefined;
    let nextCount: typeof known;
    let stageSeq: number | undefined;
    let processed = 0;
    // Immediate, like transaction(): wait for a concurrent writer instead of failing.
    this.h.db
      .transaction(() => {
        const counted =
          !pinned && known !== undefined && known.version === source.above && known.seq === this.h.headSeq() && known.dv === this.h.readDataVersion();
        if (stage) this.unstageLogged(stage);
        const rows = (
          pinned && stage && this.stageTrusted(stage) ? this.stagedHead(stage, budget.rows) : pinned ? read.all(budget.rows) : read.all(source.above, budget.rows)
        ) as Read[];
        // The rows are the head of the backlog in rid order, so when every one
        // of them leaves it, one range delete drops them all.
        const failed: number[] = [];
        let last: number | undefined;
        let bytes = 0;
        for (const r of rows) {
          // Past the first record, a batch ends once it holds the byte budget; the rest wait for the next pass.
          if (bytes >= budget.bytes) break;
          const v = r.schema_version ?? 0;
          if (!(pinned && (r.id === null || (r.schema_version !== null && v >= source.pinnedBelow)))) {
            const st = stage?.take(r.rid, r.short_id, r.schema_version);
            let record: MemoryRecord | PreEncoded;
            let quiet: boolean;
            if (st !== undefined) {
              bytes += st.bytes;
              quiet = st.quiet;
              record = st.quiet
                ? new PreEncoded({ id: r.id!, short_id: st.short_id, schema_version: version, payload: st.payload }, false)
                : new PreEncoded(st.columns, true);
            } else {
              const text = r.payload ?? (payloadOf.get(r.rid) as string);
              bytes += Buffer.byteLength(text, "utf8");
              const payload = JSON.parse(text) as Payload;
              const before = mirroredValues(payload);
              const next = rewrite({ id: r.id!, version: v, payload });
              if (next === undefined) break;
              record = next as unknown as MemoryRecord;
              quiet = canBeQuiet(before, next, r.schema_version, version);
            }
            try {
              outcomes.push(this.writes.writeRecord(record, undefined, version, { stored: r, quiet }) ? "ok" : "gone");
            } catch (err) {
              outcomes.push(err as Error);
              // A write that failed leaves its record pending, so the next pass retries it.
              failed.push(r.rid);
            }
          }
          last = r.rid;
          processed++;
        }
        if (pinned && last !== undefined) {
          if (failed.length === 0) dropRange!.run(rows[0]!.rid, last);
          else for (const r of rows) if (r.rid <= last && !failed.includes(r.rid)) drop!.run(r.rid);
        }
        if (counted && !pinned && version <= source.above) {
          const moved = outcomes.filter((o) => o === "ok").length;
          nextCount = { version: source.above, seq: this.h.headSeq(), dv: this.h.readDataVersion(), n: known.n - moved };
        }
        // What this pass logged itself concerns rows it has just written, which leave the backlog.
        if (stage) stageSeq = this.h.headSeq();
      })
      .immediate();
    // Only a committed pass hands its count and its log position on; a stage
    // a worker still feeds stays at the worker's snapshot, which its next
    // chunks are current at.
    this.carry.aboveCount = nextCount;
    if (ahead) ahead.read += processed;
    if (stage && stageSeq !== undefined && (!ahead || ahead.sweep.complete)) stage.seq = stageSeq;
    this.m.afterWrite();
    return outcomes;
  }

  /**
   * Whether a forward pass, inside its write transaction, may take the
   * head of the backlog from the stage instead of reading each record's row
   * (about a tenth of a forward sweep over 100,000 records). It may while no
   * other connection has committed since the preflight began: this
   * connection's own writes since are either passes, which write only
   * records that then leave the backlog, or logged, and unstageLogged has
   * dropped the entries of those records already. A commit of any other
   * connection (a quiet write of another sweep logs nothing) ends the trust
   * for the rest of the sweep.
   */
  private stageTrusted(stage: MigrationStage): boolean {
    if (stage.trustedAt !== undefined && this.h.readDataVersion() !== stage.trustedAt) stage.trustedAt = undefined;
    return stage.trustedAt !== undefined;
  }

  /** The head of the pending backlog as a pass reads it, with the columns of staged records from the stage and the rest from their rows. */
  private stagedHead(stage: MigrationStage, limit: number): { rid: number; id: string | null; short_id: string | null; schema_version: number | null }[] {
    const rids = this.h.stmt("SELECT rid FROM temp.migrate_pending ORDER BY rid LIMIT ?").pluck().all(limit) as number[];
    const row = this.h.stmt("SELECT rid, id, short_id, schema_version FROM records WHERE rid = ?");
    return rids.map(
      (rid) =>
        stage.peek(rid) ??
        (row.get(rid) as { rid: number; id: string; short_id: string | null; schema_version: number | null } | undefined) ?? {
          rid,
          id: null,
          short_id: null,
          schema_version: null,
        },
    );
  }

  /** Drops the staged rewrite of every record the change log shows written since the stage was last current. */
  private unstageLogged(stage: MigrationStage): void {
    const logged = this.h.stmt("SELECT rid AS logged FROM change_log WHERE seq > ?").pluck().all(stage.seq) as number[];
    for (const rid of logged) stage.drop(rid);
  }
}
