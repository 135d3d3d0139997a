import type { IndexedColumns } from "./codec.js";

/** Payload text (in characters) a forward preflight keeps for its passes; past it a pass computes the rest again. */
export const STAGE_MAX_CHARS = 128 * 1024 * 1024;

/** Payloads joined into one string: a few hundred kilobytes, which V8 keeps in its large-object space. */
const JOIN_EVERY = 512;

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
 * Kept by column, and the payload texts joined a few hundred at a time
 * into one string each, a pass taking its record's text back as a slice
 * (which V8 makes without copying). 100,000 separate strings and entry
 * objects that live through the whole preflight are copied and marked by
 * every garbage collection it triggers; measured over 100,000 records,
 * that cost 0.2-0.3 s of CPU more than the joined strings do.
 */
export class MigrationStage {
  private readonly slotOf = new Map<number, number>();
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
  /** Payloads not joined yet; they go into `joined[joined.length]`. */
  private pending: string[] = [];
  private pendingChars = 0;
  private slots = 0;
  /** Payload characters kept so far. */
  chars = 0;

  constructor(
    readonly target: number,
    /** The change-log position the entries are known to be current at. */
    public seq: number,
  ) {}

  /** Keeps what to write over record `rid`, read with `storedShort`/`storedVersion` in its columns. */
  add(
    rid: number,
    storedShort: string | null,
    storedVersion: number | null,
    bytes: number,
    write: { short_id: string | null; payload: string } | IndexedColumns,
    quiet: boolean,
  ): void {
    const slot = this.slots++;
    if (slot === this.bytes.length) this.grow();
    this.slotOf.set(rid, slot);
    this.storedShort[slot] = storedShort;
    this.storedVersion[slot] = storedVersion ?? Number.NaN;
    this.bytes[slot] = bytes;
    this.chars += write.payload.length;
    if (!quiet) {
      this.chunkOf[slot] = -1;
      this.newShort[slot] = null;
      this.full.set(slot, write as IndexedColumns);
      return;
    }
    this.newShort[slot] = write.short_id;
    this.chunkOf[slot] = this.joined.length;
    this.start[slot] = this.pendingChars;
    this.pendingChars += write.payload.length;
    this.end[slot] = this.pendingChars;
    this.pending.push(write.payload);
    if (this.pending.length === JOIN_EVERY) this.join();
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
    if (c === this.joined.length) this.join();
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

  private join(): void {
    this.joined.push(this.pending.join(""));
    this.pending = [];
    this.pendingChars = 0;
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
