import type { SqliteDatabase, SqliteStatement } from "./sqlite/index.js";
import { distinctTerms, searchableText } from "../../model/lexical-terms.js";
import type { Logger } from "../../model/logger.js";
import { META_TERM_INDEX } from "../meta-keys.js";

/**
 * The SQL function the triggers call to fill the term index. Every
 * connection that may write records registers it before its first write
 * (`registerTermFunction`); a connection without it fails the write rather
 * than leave a record unindexed.
 */
export const TERMS_FUNCTION = "engram_terms";

/** The SQL expression giving a record's terms from its payload column (`new.payload`, `payload`). */
export function termsOf(payload: string): string {
  return `${TERMS_FUNCTION}(json_extract(${payload}, '$.content'), json_extract(${payload}, '$.summary'),
    (SELECT group_concat(value, ' ') FROM json_each(${payload}, '$.tags')))`;
}

export function registerTermFunction(db: SqliteDatabase): void {
  db.function(TERMS_FUNCTION, (content, summary, tags) =>
    distinctTerms(searchableText({ content: String(content ?? ""), summary: String(summary ?? "") }) + ` ${String(tags ?? "")}`).join(" "),
  );
}

/**
 * Files written before the term index hold words unstemmed in `records_fts`.
 * This drops that table and the triggers that fed it, once, at open, in one
 * IMMEDIATE transaction; the schema script then creates the term index and
 * its triggers, and `buildTermIndex` fills it in the background. Returns
 * true when it upgraded.
 */
export function dropWordIndex(db: SqliteDatabase, log: Logger): boolean {
  const hasOld = () => db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'records_fts'").get() !== undefined;
  if (!hasOld()) return false;
  let dropped = false;
  db.transaction(() => {
    if (!hasOld()) return;
    db.exec(`DROP TRIGGER IF EXISTS records_ai;
      DROP TRIGGER IF EXISTS records_au_fts;
      DROP TRIGGER IF EXISTS records_ad;
      DROP TABLE IF EXISTS records_fts_vocab;
      DROP TABLE IF EXISTS records_fts;
      DELETE FROM meta WHERE key = '${META_TERM_INDEX}';`);
    dropped = true;
  }).immediate();
  if (dropped) log.info("storage layout upgraded: words are indexed as stemmed terms; the term index is built in the background");
  return dropped;
}

export function termIndexComplete(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM meta WHERE key = ?").get(META_TERM_INDEX) !== undefined;
}

/** Marks a store with no records as complete: nothing to build. */
export function markTermIndexIfEmpty(db: SqliteDatabase): void {
  if (termIndexComplete(db)) return;
  db.transaction(() => {
    if (db.prepare("SELECT 1 FROM records LIMIT 1").get() === undefined) {
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 'complete')").run(META_TERM_INDEX);
    }
  }).immediate();
}

const SLICE = 2_000;
const PROGRESS_EVERY_MS = 2_000;

/**
 * Indexes the terms of every record written before the term index existed,
 * a slice of records per transaction with the event loop free in between,
 * logging progress with counts. Records written meanwhile are indexed by
 * the triggers and skipped here, so two processes building at once (a
 * server and an operator verb) only repeat each other's lookups. Searches
 * stay correct meanwhile: a record not yet indexed is still found by its
 * vector, only not yet by its words. It stops when `yieldSlice` says the
 * store has closed.
 */
export async function buildTermIndex(db: SqliteDatabase, log: Logger, yieldSlice: () => Promise<boolean>): Promise<void> {
  if (termIndexComplete(db)) return;
  const total = (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
  const upTo = db.prepare("SELECT max(rid) AS r FROM (SELECT rid FROM records WHERE rid > ? ORDER BY rid LIMIT ?)").pluck();
  const fill = db.prepare(
    `INSERT INTO records_terms (rowid, body) SELECT rid, ${termsOf("payload")} FROM records
     WHERE rid > @after AND rid <= @upto AND rid NOT IN (SELECT rowid FROM records_terms WHERE rowid > @after AND rowid <= @upto)`,
  );
  log.info(`term index building: 0/${total} records`, { done: 0, total });
  let after = 0;
  let done = 0;
  let lastReport = Date.now();
  for (;;) {
    if (!(await yieldSlice())) return;
    const upto = upTo.get(after, SLICE) as number | null;
    if (upto === null) break;
    db.transaction(() => fill.run({ after, upto })).immediate();
    done += SLICE;
    after = upto;
    if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = Date.now();
      log.info(`term index building: ${Math.min(done, total)}/${total} records`, { done: Math.min(done, total), total });
    }
  }
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 'complete')").run(META_TERM_INDEX);
  log.info(`term index ready: ${total}/${total} records`, { done: total, total });
}
