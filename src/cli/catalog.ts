import type { Command, Option } from "commander";
import { collectEntries, collectList, parseUint } from "../cli-kit/index.js";
import { EXIT_TABLE } from "../argerror/index.js";
import { OPERATION_ROWS } from "../core/index.js";

/**
 * The self-describe catalog printed by a bare `engram`. Commands and flags
 * come from walking the commander tree; exit codes from EXIT_TABLE; the one
 * hand-kept table is the blast radius of the verbs that call no operation,
 * keyed by command path; a verb calling an operation has its row's hints.
 */

export type BlastRadius = { read_only: boolean; destructive: boolean; idempotent: boolean; open_world: boolean };

const READ: BlastRadius = { read_only: true, destructive: false, idempotent: true, open_world: false };

/** The verbs that call one operation: the operation's hints, in the closed engram domain. */
const OPERATION_VERBS: Readonly<Record<string, BlastRadius>> = Object.fromEntries(
  OPERATION_ROWS.flatMap((r) => (r.verb === undefined ? [] : [[r.verb, { ...r.hints, open_world: false }]])),
);

/**
 * Conservative hints: true only when true for every valid invocation.
 * open_world is false for the closed engram domain; serve is the exception
 * because it listens on the network and may call an external embedder.
 */
export const BLAST_RADIUS: Readonly<Record<string, BlastRadius>> = {
  ...OPERATION_VERBS,
  serve: { read_only: false, destructive: false, idempotent: false, open_world: true },
  // The session can call every tool, delete_all included.
  mcp: { read_only: false, destructive: true, idempotent: false, open_world: false },
  // Re-embedding rewrites every vector; a rerun converges, and the model or endpoint is the configured one.
  reindex: { read_only: false, destructive: false, idempotent: true, open_world: true },
  // The v0 to v1 sweep of `migrate`: additive and convergent.
  "backfill-short-ids": { read_only: false, destructive: false, idempotent: true, open_world: false },
  version: READ,
  completion: READ,
  "completion bash": READ,
  "completion zsh": READ,
  "completion fish": READ,
  // Operator verbs open the store directly. A preview is the default, but the
  // hints describe every valid invocation, --apply included.
  // The forward sweep only adds keys (additivity is checked before any write)
  // and converges, so it is not destructive and a re-run is harmless.
  migrate: { read_only: false, destructive: false, idempotent: true, open_world: false },
  "migrate status": READ,
  // A revert deletes the keys its steps added.
  "migrate revert": { read_only: false, destructive: true, idempotent: true, open_world: false },
  // Portable data. export only reads (one snapshot); import replaces records
  // that share an id with the file, and a rerun converges; backup writes a
  // new file and refuses one that exists, so a rerun fails.
  export: READ,
  import: { read_only: false, destructive: true, idempotent: true, open_world: false },
  backup: { read_only: false, destructive: false, idempotent: false, open_world: false },
  "spine-review": READ,
  "spine-review scan": READ,
  // verify reads files of a working tree outside engram and asks git for its origin.
  "spine-review verify": { read_only: true, destructive: false, idempotent: true, open_world: true },
  "spine-review archive": { read_only: false, destructive: false, idempotent: true, open_world: false },
  "spine-review restore": { read_only: false, destructive: false, idempotent: true, open_world: false },
  // Lifecycle sweeps: purge and prune-expired delete records for good; a rerun finds nothing left to delete.
  "spine-review purge": { read_only: false, destructive: true, idempotent: true, open_world: false },
  "spine-review consolidate": READ,
  "prune-expired": { read_only: false, destructive: true, idempotent: true, open_world: false },
  // Moving records to another owner takes them from the first (records with no owner cannot be given back that state); a rerun finds none left.
  "migrate-remap-owner": { read_only: false, destructive: true, idempotent: true, open_world: false },
  "migrate-set-owner": { read_only: false, destructive: true, idempotent: true, open_world: false },
  // Only fills summaries that are empty, and a rerun finds none; the content goes to the configured chat model.
  "summarize-missing": { read_only: false, destructive: false, idempotent: true, open_world: true },
  // Ends sessions, not data; a rerun ends whatever sessions began since.
  "end-sessions": { read_only: false, destructive: false, idempotent: false, open_world: false },
};

export type CatalogFlag = { name: string; type: string; default: string | boolean | null; usage: string; env?: string };
export type CatalogArgument = { name: string; required: boolean; variadic: boolean };
export type CatalogCommand = {
  name: string;
  summary: string;
  arguments: CatalogArgument[];
  flags: CatalogFlag[];
  blast_radius: BlastRadius;
};
export type Catalog = {
  binary: string;
  version: string;
  commands: CatalogCommand[];
  exit_codes: { code: number; meaning: string }[];
  notes: string[];
};

export const CATALOG_NOTES = [
  "Run a command with --help for details; `engram help <command>` does the same.",
  "Client verbs talk Connect to --server (or ENGRAM_SERVER_URL); the bearer token comes from ENGRAM_TOKEN or --token-file.",
  "--output defaults to text when stdout is a terminal and json otherwise; json is the stable contract: the proto JSON of the response, snake_case, one document per run.",
  "Diagnostics go to stderr only. A rejection in the envelope grammar `field=<names> hint=<code>: <detail>` is always the whole line, whether the CLI or the server found it, and so is any other message in the server's own words (`not found: …` and the other sentinels, `internal error`, `unavailable: …`), exactly as sent; the CLI's own lines, transport failures included, start with `engram: `.",
  "A retired MEM_* variable in the environment stops every verb with exit 2, naming the variable and never its value.",
  "Operator verbs (migrate, migrate status, migrate revert, backfill-short-ids, reindex, prune-expired, summarize-missing, migrate-remap-owner, migrate-set-owner, spine-review scan, verify, archive, restore, purge and consolidate, export, import, backup, end-sessions) open the store under ENGRAM_DATA_DIR directly and take no --server; those that rewrite or delete stored records (migrate, migrate revert, backfill-short-ids, reindex, prune-expired, migrate-remap-owner, migrate-set-owner, spine-review archive, restore and purge, end-sessions) preview unless --apply is given; summarize-missing writes only empty summaries and previews with --dry-run. export writes JSON Lines on stdout; for the others json is one document, their stable contract too.",
  "ENGRAM_PROGRESS=always prints progress lines of migrate --apply, migrate revert --apply, backfill-short-ids --apply, reindex --apply, prune-expired --apply, spine-review purge --apply, spine-review consolidate, migrate-remap-owner --apply, migrate-set-owner --apply, summarize-missing (not --dry-run), export, import, backup and store --from-file on stderr even without a terminal; never silences them.",
];

/** The space-joined path below the root, e.g. "completion bash". */
export function commandPath(cmd: Command): string {
  const parts: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) parts.unshift(c.name());
  return parts.join(" ");
}

/** Every command below the root, depth first in registration order. */
export function walkCommands(root: Command): Command[] {
  const out: Command[] = [];
  const visit = (c: Command) => {
    for (const sub of c.commands) {
      out.push(sub);
      visit(sub);
    }
  };
  visit(root);
  return out;
}

/**
 * A flag that takes no value. Commander's isBoolean() is false for a negated
 * one (`--no-snapshot`, `--no-vectors`), which is a switch all the same.
 */
export function isSwitch(o: Option): boolean {
  return !o.required && !o.optional;
}

export function flagType(o: Option): string {
  if (isSwitch(o)) return "bool";
  if (o.argChoices) return `enum(${o.argChoices.join("|")})`;
  if (o.parseArg === (collectList as unknown) || o.parseArg === (collectEntries as unknown) || o.variadic) return "string_list";
  if (o.parseArg === (parseUint as unknown)) return "uint";
  if (/<duration>/.test(o.flags)) return "duration";
  if (/<rfc3339>/.test(o.flags)) return "timestamp";
  if (/<version>/.test(o.flags)) return "uint";
  if (/<json>/.test(o.flags)) return "json_list";
  if (o.parseArg) return "string_list";
  return "string";
}

function flagEntry(o: Option): CatalogFlag {
  let def: string | boolean | null = null;
  if (o.defaultValueDescription !== undefined) def = o.defaultValueDescription;
  else if (o.defaultValue !== undefined) def = String(o.defaultValue);
  // A switch is off unless given, a negated one (`--no-snapshot`) included.
  else if (isSwitch(o)) def = false;
  const entry: CatalogFlag = { name: o.long ?? o.short ?? o.flags, type: flagType(o), default: def, usage: o.description };
  if (o.mandatory) entry.usage += " (required)";
  if (o.envVar) entry.env = o.envVar;
  return entry;
}

export function blastRadiusOf(path: string): BlastRadius {
  const br = BLAST_RADIUS[path];
  if (!br) throw new Error(`no blast radius declared for "${path}"`);
  return br;
}

export function buildCatalog(root: Command, version: string): Catalog {
  return {
    binary: root.name(),
    version,
    commands: walkCommands(root).map((c) => {
      const path = commandPath(c);
      return {
        name: path,
        summary: c.summary() || c.description(),
        arguments: c.registeredArguments.map((a) => ({ name: a.name(), required: a.required, variadic: a.variadic })),
        flags: c.options.filter((o) => !o.hidden).map(flagEntry),
        blast_radius: blastRadiusOf(path),
      };
    }),
    exit_codes: Object.values(EXIT_TABLE).map((r) => ({ code: r.code, meaning: r.meaning })),
    notes: CATALOG_NOTES,
  };
}
