import type { IndexedColumns } from "../codec.js";
import type { StagedChunk } from "./sweep/sweep-row.js";

/** Payload text (in characters) a forward preflight keeps for its passes; past it a pass computes the rest again. */
export const STAGE_MAX_CHARS = 128 * 1024 * 1024;

/** What a pass writes for one staged record. */
export type StagedWrite =
  | { quiet: true; short_id: string | null; payload: string; bytes: number }
  | { quiet: false; columns: IndexedColumns; bytes: number };

/**
 * What a forward preflight computed for each pinned record, kept for the
 * passes (see EmbeddedStore.scanPinned): the record's indexed columns as the
 * preflight read them, the stored payload's size (for the byte budget) and
 * what to write.
 *
 * Kept by column, and the payload texts of one chunk of rows joined into
 * one string, a pass taking its record's text back as a slice (which V8
 * makes without copying). 100,000 separate strings and entry objects that
 * live through the whole preflight are copied and marked by every garbage
 * collection it triggers; measured over 100,000 records, that cost 0.2-0.3 s
 * of CPU more than the joined strings do. A chunk computed on a sweep
 * worker arrives in this shape already.
 */
export class MigrationStage {
  private readonly slotOf = new Map<number, number>();
  private readonly ids: string[] = [];
  private readonly storedShort: (string | null)[] = [];
  private storedVersion = new Float64Array(1024);
  private bytes = new Float64Array(1024);
  /** Index into `joined` of a quiet write's payload; -1 for a full write (in `full`). */
  private chunkOf = new Int32Array(1024);
  private start = new Float64Array(1024);
  private end = new Float64Array(1024);
  private readonly newShort: (string | null)[] = [];
  private readonly full = new Map<number, IndexedColumns>();
  private readonly joined: string[] = [];
  private slots = 0;
  /** Payload characters kept so far. */
  chars = 0;
  /**
   * The data_version of the store's connection at which every entry is
   * known to hold what its record holds (no other connection has committed
   * since the preflight began); undefined once that is not known. See
   * EmbeddedStore.rewritePass.
   */
  trustedAt: number | undefined;

  constructor(
    readonly target: number,
    /** The change-log position the entries are known to be current at. */
    public seq: number,
  ) {}

  /** Entries kept so far, taken or not. */
  get size(): number {
    return this.slots;
  }

  /** Keeps the rewrites of one chunk (see StagedChunk), each read with the stored columns the chunk names. */
  addChunk(chunk: StagedChunk): void {
    const c = this.joined.length;
    this.joined.push(chunk.text);
    this.chars += chunk.text.length;
    let f = 0;
    let from = 0;
    for (let i = 0; i < chunk.rids.length; i++) {
      const slot = this.slots++;
      if (slot === this.bytes.length) this.grow();
      this.slotOf.set(chunk.rids[i]!, slot);
      this.ids[slot] = chunk.ids[i]!;
      this.storedShort[slot] = chunk.storedShort[i]!;
      this.storedVersion[slot] = chunk.storedVersion[i]!;
      this.bytes[slot] = chunk.bytes[i]!;
      const end = chunk.ends[i]!;
      if (end < 0) {
        this.chunkOf[slot] = -1;
        this.newShort[slot] = null;
        const columns = chunk.full[f++]!;
        this.full.set(slot, columns);
        this.chars += columns.payload.length;
        continue;
      }
      this.newShort[slot] = chunk.newShort[i]!;
      this.chunkOf[slot] = c;
      this.start[slot] = from;
      this.end[slot] = end;
      from = end;
    }
  }

  /** The columns `rid` held when its entry was computed, as a pass reads them; undefined when it has no entry. */
  peek(rid: number): { rid: number; id: string; short_id: string | null; schema_version: number | null } | undefined {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return undefined;
    const v = this.storedVersion[slot]!;
    return { rid, id: this.ids[slot]!, short_id: this.storedShort[slot]!, schema_version: Number.isNaN(v) ? null : v };
  }

  /**
   * What to write over `rid`, taken out of the stage, when the preflight
   * computed it from the columns the row holds now; otherwise undefined
   * (the entry stays until `drop`).
   */
  take(rid: number, storedShort: string | null, storedVersion: number | null): StagedWrite | undefined {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return undefined;
    const v = this.storedVersion[slot]!;
    if (this.storedShort[slot] !== storedShort || (storedVersion === null ? !Number.isNaN(v) : v !== storedVersion)) return undefined;
    this.slotOf.delete(rid);
    const bytes = this.bytes[slot]!;
    const c = this.chunkOf[slot]!;
    if (c < 0) {
      const columns = this.full.get(slot)!;
      this.full.delete(slot);
      return { quiet: false, columns, bytes };
    }
    const short_id = this.newShort[slot]!;
    this.newShort[slot] = null;
    return { quiet: true, short_id, payload: this.joined[c]!.slice(this.start[slot], this.end[slot]), bytes };
  }

  /** Forgets what was kept for `rid`: the record was written by someone else since. */
  drop(rid: number): void {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return;
    this.slotOf.delete(rid);
    this.full.delete(slot);
  }

  private grow(): void {
    const n = this.bytes.length * 2;
    const wider = <T extends Float64Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.storedVersion = wider(this.storedVersion);
    this.bytes = wider(this.bytes);
    this.chunkOf = wider(this.chunkOf);
    this.start = wider(this.start);
    this.end = wider(this.end);
  }
}
