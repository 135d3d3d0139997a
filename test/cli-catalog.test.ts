/**
 * The self-describe catalog (bare `engram`), --version, help and the bash
 * completion script, run as the real binary; and the CLI docs (docs/cli.md
 * and the operator pages it links) bound to the exit table and to the
 * command tree.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT, EXIT_TABLE } from "../src/argerror/index.js";
import { BLAST_RADIUS, type Catalog } from "../src/cli/catalog.js";
import { FAIL_ON } from "../src/operator/verify-citations.js";
import { CLI_DOC_PAGES, CLI_DOCS, readDoc } from "./helpers/doc-pages.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const DOC = CLI_DOCS;
const PKG = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

type Run = { code: number | null; stdout: string; stderr: string };

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  }
  return env;
}

function run(command: string, args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO, env: childEnv(), stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

const runEngram = (args: readonly string[]) => run(process.execPath, ["bin/engram.js", ...args]);

/** The rows of the first markdown table after `heading`, header row excluded. */
function tableAfter(heading: string): string[][] {
  const lines = DOC.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) throw new Error(`the CLI docs have no heading ${heading}`);
  const first = lines.findIndex((l, i) => i > start && l.trim().startsWith("|"));
  if (first < 0) throw new Error(`no table after ${heading}`);
  const rows: string[][] = [];
  for (let i = first; i < lines.length && lines[i]!.trim().startsWith("|"); i++) {
    rows.push(
      lines[i]!
        .trim()
        .replace(/^\||\|$/g, "")
        .split("|")
        .map((c) => c.trim()),
    );
  }
  const [header, separator, ...body] = rows;
  expect(header).toEqual(["Exit", "Meaning"]);
  expect(separator?.every((c) => /^-+$/.test(c))).toBe(true);
  return body;
}

/** The body of the `### \`engram <name>…\`` section of the CLI docs. */
function sectionOf(name: string): string {
  const lines = DOC.split("\n");
  const start = lines.findIndex((l) => l.startsWith("### ") && new RegExp("`engram " + name.replace(/[-\s]/g, "[-\\s]") + "[ `]").test(l));
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

describe("the bare engram catalog", () => {
  let catalog: Catalog;
  let raw: Run;

  beforeAll(async () => {
    raw = await runEngram([]);
    catalog = JSON.parse(raw.stdout) as Catalog;
  });

  it("prints one valid JSON document on stdout and exits 0", () => {
    expect(raw.code).toBe(EXIT.ok);
    expect(raw.stderr).toBe("");
    expect(catalog.binary).toBe("engram");
    expect(catalog.version).toBe(PKG.version);
    expect(catalog.notes.length).toBeGreaterThan(0);
  });

  it("lists exit codes equal to the exit table, in order", () => {
    expect(catalog.exit_codes).toEqual(Object.values(EXIT_TABLE).map((r) => ({ code: r.code, meaning: r.meaning })));
  });

  it("lists every client verb, serve and completion", () => {
    const names = catalog.commands.map((c) => c.name);
    for (const verb of [
      "serve",
      "reindex",
      "backfill-short-ids",
      "version",
      "search",
      "list",
      "get",
      "store",
      "schedule",
      "supersede",
      "update",
      "delete",
      "delete-all",
      "store-discovery",
      "store-rule",
      "mcp",
      "archive",
      "restore",
      "migration-status",
      "completion bash",
      "completion zsh",
      "completion fish",
      "list-scopes",
      "list-tags",
      "list-scheduled",
      "list-rules",
      "related",
      "search-discoveries",
      "export",
      "import",
      "backup",
    ]) {
      expect(names).toContain(verb);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  it("gives every command a complete blast radius from the one table, and the table names no missing command", () => {
    for (const c of catalog.commands) {
      expect(Object.keys(c.blast_radius).sort(), c.name).toEqual(["destructive", "idempotent", "open_world", "read_only"]);
      expect(Object.values(c.blast_radius).every((v) => typeof v === "boolean"), c.name).toBe(true);
      expect(c.blast_radius, c.name).toEqual(BLAST_RADIUS[c.name]);
    }
    expect(Object.keys(BLAST_RADIUS).sort()).toEqual(catalog.commands.map((c) => c.name).sort());
  });

  it("names in docs/cli.md exactly the commands the catalog marks open_world", () => {
    const text = readDoc("cli.md").replace(/\s+/g, " ");
    const sentence = /`open_world` is false everywhere except (.*?)\)\./.exec(text)?.[1] ?? "";
    const named = [...sentence.matchAll(/`([^`]+)` \(/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(catalog.commands.filter((c) => c.blast_radius.open_world).map((c) => c.name).sort());
  });

  it("marks reads read-only and delete destructive", () => {
    const br = (name: string) => catalog.commands.find((c) => c.name === name)!.blast_radius;
    for (const read of ["search", "list", "get", "migration-status", "list-scopes", "list-tags", "list-scheduled", "list-rules", "related", "search-discoveries", "export"]) {
      expect(br(read).read_only, read).toBe(true);
    }
    expect(br("import")).toMatchObject({ read_only: false, destructive: true, idempotent: true });
    expect(br("delete")).toMatchObject({ read_only: false, destructive: true });
  });

  it("gives every client verb the shared connection flags and no --token flag", () => {
    const clientVerbs = catalog.commands.filter((c) => c.flags.some((f) => f.name === "--server"));
    expect(clientVerbs.map((c) => c.name).sort()).toEqual(
      [
        "archive",
        "count",
        "delete",
        "delete-all",
        "get",
        "list",
        "list-rules",
        "list-scheduled",
        "list-scopes",
        "list-tags",
        "migration-status",
        "related",
        "restore",
        "schedule",
        "search",
        "search-discoveries",
        "store",
        "store-discovery",
        "store-rule",
        "supersede",
        "update",
      ].sort(),
    );
    for (const c of clientVerbs) {
      const flags = Object.fromEntries(c.flags.map((f) => [f.name, f]));
      expect(flags["--server"]?.env, c.name).toBe("ENGRAM_SERVER_URL");
      expect(flags["--timeout"], c.name).toMatchObject({ type: "duration", default: "30s", env: "ENGRAM_TIMEOUT" });
      expect(flags["--output"]?.type, c.name).toBe("enum(json|text)");
      expect(flags["--token-file"], c.name).toBeDefined();
      expect(flags["--token"], c.name).toBeUndefined();
      expect(flags["--insecure"], c.name).toMatchObject({ type: "bool", default: false });
      expect(flags["--insecure"]?.env, c.name).toBeUndefined();
    }
  });

  it("derives flag types from the command tree", () => {
    const flag = (cmd: string, name: string) =>
      catalog.commands.find((c) => c.name === cmd)!.flags.find((f) => f.name === name);
    expect(flag("list", "--limit")?.type).toBe("uint");
    expect(flag("search", "--k")?.type).toBe("uint");
    expect(flag("list", "--cursor-mode")).toMatchObject({ type: "bool", default: false });
    expect(flag("list", "--tags")?.type).toBe("string_list");
    expect(flag("supersede", "--supersedes")?.type).toBe("string_list");
    expect(flag("search", "--created-after")?.type).toBe("timestamp");
    expect(flag("spine-review consolidate", "--top-k")).toMatchObject({ type: "uint", default: "5" });
    expect(flag("spine-review purge", "--class")?.type).toBe("string_list");
    // A negated switch takes no value and is off unless given, like any other switch.
    expect(flag("export", "--no-vectors")).toMatchObject({ type: "bool", default: false });
    expect(flag("migrate", "--no-snapshot")).toMatchObject({ type: "bool", default: false });
    expect(flag("backfill-short-ids", "--no-snapshot")).toMatchObject({ type: "bool", default: false });
    expect(flag("spine-review verify", "--fail-on")?.type).toBe(`enum(${FAIL_ON.join("|")})`);
  });

  it("describes migrate status's --timeout as accepted, not as the budget of a write loop status does not have", () => {
    const usage = catalog.commands.find((c) => c.name === "migrate status")!.flags.find((f) => f.name === "--timeout")!.usage;
    expect(usage).not.toMatch(/write loop/);
    expect(usage).toMatch(/one read/);
  });

  it("gives a sweep's --older-than the default the sweep applies: 0 for prune-expired and summarize-missing, none for purge, whose classes have their own", () => {
    const flag = (cmd: string) => catalog.commands.find((c) => c.name === cmd)!.flags.find((f) => f.name === "--older-than");
    expect(flag("prune-expired")).toMatchObject({ type: "duration", default: "0" });
    expect(flag("summarize-missing")).toMatchObject({ type: "duration", default: "0" });
    expect(flag("spine-review purge")).toMatchObject({ type: "duration", default: null });
  });
});

describe("the CLI docs: docs/cli.md and its operator pages", () => {
  it("has an exit table equal to EXIT_TABLE in both directions", () => {
    const doc = tableAfter("## Exit statuses").map(([code, meaning]) => ({ code: Number(code), meaning }));
    const table = Object.values(EXIT_TABLE).map((r) => ({ code: r.code, meaning: r.meaning }));
    for (const row of table) expect(doc).toContainEqual(row);
    for (const row of doc) expect(table).toContainEqual(row);
    expect(doc).toHaveLength(table.length);
  });

  it("documents every command in the catalog and every flag of it", async () => {
    const catalog = JSON.parse((await runEngram([])).stdout) as Catalog;
    const shared = ["--server", "--token-file", "--output", "--timeout", "--insecure"];
    for (const c of catalog.commands) {
      if (c.name === "completion") continue; // documented through its one subcommand
      const section = sectionOf(c.name);
      expect(section, `a section for engram ${c.name}`).not.toBe("");
      for (const f of c.flags) {
        if (shared.includes(f.name)) continue; // documented once, in the connection table
        // schedule and supersede take "every store flag plus" their own.
        const viaStore = ["schedule", "supersede"].includes(c.name) && sectionOf("store").includes("`" + f.name + " ");
        expect(section.includes("`" + f.name) || viaStore, `engram ${c.name} ${f.name}`).toBe(true);
      }
    }
    for (const f of shared) expect(DOC.includes("`" + f + " ") || DOC.includes("`" + f + "`"), f).toBe(true);
  });

  it("links each operator page from docs/cli.md", () => {
    const cli = readDoc(CLI_DOC_PAGES[0]);
    for (const page of CLI_DOC_PAGES.slice(1)) expect(cli, page).toContain(`](${page})`);
  });
});

describe("version, help and completion", { timeout: 120_000 }, () => {
  it("--version prints the package version and exits 0", async () => {
    const r = await runEngram(["--version"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout.trim()).toBe(PKG.version);
  });

  it("version prints the same line as --version", async () => {
    const [verb, flag] = await Promise.all([runEngram(["version"]), runEngram(["-v"])]);
    expect(verb).toEqual({ code: EXIT.ok, stdout: `${PKG.version}\n`, stderr: "" });
    expect(flag).toEqual(verb);
  });

  it("help for a nested command prints that command's help, not its parent's", async () => {
    const [viaHelp, viaFlag] = await Promise.all([runEngram(["help", "migrate", "revert"]), runEngram(["migrate", "revert", "--help"])]);
    expect(viaHelp.code).toBe(EXIT.ok);
    expect(viaHelp.stdout.split("\n")[0]).toBe("Usage: engram migrate revert [options]");
    expect(viaHelp.stdout).toContain("--to <version>");
    expect(viaHelp).toEqual(viaFlag);
  });

  it("help for a verb prints its flags and exits 0", async () => {
    const r = await runEngram(["help", "list"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toContain("--cursor-mode");
    expect(r.stdout).toContain("--page-token");
  });

  it("completion bash completes verbs and flags from the command tree", async () => {
    const script = await runEngram(["completion", "bash"]);
    expect(script.code).toBe(EXIT.ok);
    expect(script.stdout).toContain("complete -F");

    const probe = (words: string[]) =>
      run("bash", ["-c", `eval "$(cat)"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _engram_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], script.stdout);

    const verbs = await probe(["engram", "s"]);
    expect(verbs.stdout.split("\n").filter(Boolean).sort()).toEqual(["schedule", "search", "search-discoveries", "serve", "spine-review", "store", "store-discovery", "store-rule", "summarize-missing", "supersede"]);

    const listFlags = await probe(["engram", "list", "--cur"]);
    expect(listFlags.stdout.split("\n").filter(Boolean)).toEqual(["--cursor-mode"]);

    const output = await probe(["engram", "get", "--output", ""]);
    expect(output.stdout.split("\n").filter(Boolean).sort()).toEqual(["json", "text"]);

    const classes = await probe(["engram", "spine-review", "purge", "--class", ""]);
    expect(classes.stdout.split("\n").filter(Boolean).sort()).toEqual(["archived", "expired", "superseded"]);

    const sub = await probe(["engram", "completion", ""]);
    expect(sub.stdout.split("\n").filter(Boolean).sort()).toEqual(["--help", "bash", "fish", "zsh"]);

    const tiers = await probe(["engram", "spine-review", "verify", "--fail-on", ""]);
    expect(tiers.stdout.split("\n").filter(Boolean).sort()).toEqual([...FAIL_ON].sort());

    // A negated switch takes no value: the word after it is completed as a flag, not left as its value.
    const afterSwitch = await probe(["engram", "migrate", "--no-snapshot", "--ap"]);
    expect(afterSwitch.stdout.split("\n").filter(Boolean)).toEqual(["--apply"]);
  });

  it("completion zsh and fish take a negated switch as taking no value and --fail-on's tiers as its values", async () => {
    const [zsh, fish] = await Promise.all([runEngram(["completion", "zsh"]), runEngram(["completion", "fish"])]);
    expect(zsh.stdout).not.toMatch(/^ {4}--no-snapshot\)/m);
    expect(zsh.stdout).not.toMatch(/^ {4}--no-vectors\)/m);
    expect(zsh.stdout).toContain(`    --fail-on) compadd -- ${FAIL_ON.map((t) => `'${t}'`).join(" ")}; return 0 ;;`);
    const fishLine = (flag: string) => fish.stdout.split("\n").filter((l) => l.includes(` -l ${flag} `));
    expect(fishLine("no-snapshot").length).toBeGreaterThan(0);
    for (const l of [...fishLine("no-snapshot"), ...fishLine("no-vectors")]) expect(l).not.toMatch(/ -[xr] /);
    expect(fishLine("fail-on")).toHaveLength(1);
    expect(fishLine("fail-on")[0]).toContain(` -x -a '${FAIL_ON.join(" ")}' `);
  });
});
