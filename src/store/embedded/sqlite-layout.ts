import type { SqliteDatabase, SqliteStatement } from "./sqlite/index.js";
import type { Logger } from "../../model/logger.js";
import { SCHEMA_SQL } from "./sqlite-schema.js";

/**
 * Files written before vectors got their own table keep each vector in a
 * `vector` column of `records`. This moves them across once, at open, in
 * one IMMEDIATE transaction: a crash part-way leaves the old layout whole
 * (SQLite rolls the DDL back with the data), and a second process opening
 * the same file waits for the lock and then finds nothing to do.
 *
 * Rids do not change and no change-log row is written, so a saved vector
 * snapshot stays valid across the upgrade. The triggers are dropped with
 * the column and recreated by the schema script in the same transaction,
 * so no other connection ever writes the file without them.
 *
 * Returns the number of vectors moved, or undefined when the file already
 * had the current layout.
 */
export function upgradeLayout(db: SqliteDatabase, log: Logger): number | undefined {
  if (!hasVectorColumn(db)) return undefined;
  let moved: number | undefined;
  let records = 0;
  db.transaction(() => {
    // Re-checked under the write lock: another process may have upgraded meanwhile.
    if (!hasVectorColumn(db)) return;
    records = (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n;
    // Every trigger on records goes, not only the ones naming the column:
    // the schema script recreates them as they are now (records_ad also
    // clears the vector) and would leave an old one standing.
    db.exec(`DROP TRIGGER IF EXISTS records_ai;
      DROP TRIGGER IF EXISTS records_au;
      DROP TRIGGER IF EXISTS records_au_fts;
      DROP TRIGGER IF EXISTS records_au_terms;
      DROP TRIGGER IF EXISTS records_ad;
      DROP TRIGGER IF EXISTS vectors_ai;
      DROP TRIGGER IF EXISTS vectors_au;
      CREATE TABLE IF NOT EXISTS vectors (rid INTEGER PRIMARY KEY, vector BLOB NOT NULL);`);
    moved = db.prepare("INSERT INTO vectors (rid, vector) SELECT rid, vector FROM records WHERE vector IS NOT NULL").run().changes;
    db.exec("ALTER TABLE records DROP COLUMN vector");
    db.exec(SCHEMA_SQL);
  }).immediate();
  if (moved !== undefined) {
    log.info(`storage layout upgraded: ${moved} vectors of ${records} records moved to their own table`, { records, vectors: moved });
  }
  return moved;
}

function hasVectorColumn(db: SqliteDatabase): boolean {
  const cols = db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[];
  return cols.some((c) => c.name === "vector");
}

/**
 * Files written before the update triggers named their columns fire them
 * on every UPDATE, a migration pass's payload-only rewrite included. This
 * recreates the two update triggers in the current form, once, at open, in
 * one IMMEDIATE transaction (a crash part-way keeps the old ones; a second
 * process waits for the lock and then finds nothing to do). Both forms log
 * and index every ordinary write alike, so a binary that still has the old
 * schema script in it works unchanged on an upgraded file.
 *
 * Returns true when it upgraded.
 */
export function upgradeUpdateTriggers(db: SqliteDatabase, log: Logger): boolean {
  if (updateTriggersCurrent(db)) return false;
  let upgraded = false;
  db.transaction(() => {
    if (updateTriggersCurrent(db)) return;
    db.exec("DROP TRIGGER IF EXISTS records_au; DROP TRIGGER IF EXISTS records_au_fts; DROP TRIGGER IF EXISTS records_au_terms;");
    db.exec(SCHEMA_SQL);
    upgraded = true;
  }).immediate();
  if (upgraded) log.info("storage layout upgraded: the update triggers fire on the mirrored columns only");
  return upgraded;
}

/** True when both update triggers name their columns, or the file has none yet (the schema script creates them so). */
function updateTriggersCurrent(db: SqliteDatabase): boolean {
  const rows = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('records_au', 'records_au_fts', 'records_au_terms')").all() as { sql: string }[];
  return rows.every((r) => /\bAFTER\s+UPDATE\s+OF\b/i.test(r.sql));
}
