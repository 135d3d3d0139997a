import type { IndexedColumns } from "../codec.js";
import { termsOf } from "./term-index.js";

/**
 * The columns whose writing fires the update triggers: every column a
 * reader mirrors, so every ordinary write names them (writeRecord's UPDATEs
 * always set them all). A migration pass that leaves every mirrored column,
 * the content and the tags as they are sets only short_id, schema_version
 * and payload, which no other process's mirror and no term row reads: it
 * fires nothing, so it pays no change-log row and no term comparison (see
 * EmbeddedStore.rewritePass).
 */
export const MIRRORED_COLUMNS = [
  "id",
  "owner",
  "scope",
  "visibility",
  "category",
  "kind",
  "created_at",
  "not_before",
  "not_after",
  "superseded_by",
  "archived_at",
] as const satisfies readonly (keyof IndexedColumns)[];

const FIRES_ON = `UPDATE OF ${MIRRORED_COLUMNS.join(", ")}`;

/**
 * The embedded store's tables. The change log and the term index are kept by
 * triggers so that any process writing the file (server, operator verbs,
 * migrations) keeps them right without knowing about them.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS records (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  short_id TEXT,
  owner TEXT,
  scope TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT '',
  category TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  not_before INTEGER,
  not_after INTEGER,
  superseded_by TEXT,
  archived_at TEXT,
  schema_version INTEGER,
  payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_short_id ON records (short_id);
CREATE INDEX IF NOT EXISTS records_schema_version ON records (schema_version);

-- Vectors sit apart from the payload: a payload rewrite (a migration, an
-- access flush) then rewrites a small row instead of a page-sized one.
CREATE TABLE IF NOT EXISTS vectors (rid INTEGER PRIMARY KEY, vector BLOB NOT NULL);

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- vec says whether the vector changed, so a payload-only write (a migration,
-- an archive flip) never re-inserts a vector into the index.
CREATE TABLE IF NOT EXISTS change_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, rid INTEGER NOT NULL, vec INTEGER NOT NULL DEFAULT 1);

-- Each record's distinct terms (model/lexical-terms.ts), as the engram_terms()
-- function every writing connection registers gives them: already split and
-- stemmed, so unicode61 only separates them. The vocabulary table gives a
-- term's document frequency; detail = none keeps no positions, which
-- nothing reads.
CREATE VIRTUAL TABLE IF NOT EXISTS records_terms USING fts5(body, tokenize = 'unicode61 remove_diacritics 0', detail = none);
CREATE VIRTUAL TABLE IF NOT EXISTS records_terms_vocab USING fts5vocab(records_terms, 'row');

CREATE TRIGGER IF NOT EXISTS records_ai AFTER INSERT ON records BEGIN
  INSERT INTO change_log (rid) VALUES (new.rid);
  INSERT INTO records_terms (rowid, body) VALUES (new.rid, ${termsOf("new.payload")});
END;
-- Written only by an UPDATE that names a mirrored column (see MIRRORED_COLUMNS).
CREATE TRIGGER IF NOT EXISTS records_au AFTER ${FIRES_ON} ON records BEGIN
  INSERT INTO change_log (rid, vec) VALUES (new.rid, 0);
END;
CREATE TRIGGER IF NOT EXISTS records_au_terms AFTER ${FIRES_ON} ON records
WHEN json_extract(old.payload, '$.content') IS NOT json_extract(new.payload, '$.content')
  OR json_extract(old.payload, '$.summary') IS NOT json_extract(new.payload, '$.summary')
  OR json_extract(old.payload, '$.tags') IS NOT json_extract(new.payload, '$.tags') BEGIN
  DELETE FROM records_terms WHERE rowid = old.rid;
  INSERT INTO records_terms (rowid, body) VALUES (new.rid, ${termsOf("new.payload")});
END;
CREATE TRIGGER IF NOT EXISTS records_ad AFTER DELETE ON records BEGIN
  INSERT INTO change_log (rid) VALUES (old.rid);
  DELETE FROM records_terms WHERE rowid = old.rid;
  DELETE FROM vectors WHERE rid = old.rid;
END;
CREATE TRIGGER IF NOT EXISTS vectors_ai AFTER INSERT ON vectors BEGIN
  INSERT INTO change_log (rid, vec) VALUES (new.rid, 1);
END;
CREATE TRIGGER IF NOT EXISTS vectors_au AFTER UPDATE ON vectors WHEN old.vector IS NOT new.vector BEGIN
  INSERT INTO change_log (rid, vec) VALUES (new.rid, 1);
END;
`;

/** The change log's head: the position every mirror and every kept sweep rewrite is current at. */
export const CHANGE_LOG_HEAD_SQL = "SELECT coalesce(max(seq), 0) AS s FROM change_log";
