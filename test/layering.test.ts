/**
 * The layering of src/, checked from the source text. The picture is data in
 * test/helpers/layers.ts (and a map in docs/architecture.md): the first block
 * holds the picture to the rules it must keep, so a rule cannot be edited
 * away there; the second holds every import in src/ to the picture.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BACKEND_DRIVERS,
  LANES,
  MAY_IMPORT,
  OPERATOR_DEBT,
  ROOT,
  SRC,
  WIRE_PACKAGES,
  importsOf,
  isPackage,
  moduleOf,
  sourceFiles,
  targetOf,
  type Module,
} from "./helpers/layers.js";

const allowed = (m: Module): readonly string[] => MAY_IMPORT[m];
const modules = Object.keys(MAY_IMPORT) as Module[];
const lanes: readonly string[] = LANES;

/** Every file of a module, with the module it belongs to. */
function filesOf(m: Module): string[] {
  return m.endsWith(".ts") ? [join(SRC, m)] : sourceFiles(join(SRC, m));
}

/** `file -> what` for each import of the files that `bad` picks out. */
function offenders(files: readonly string[], bad: (spec: string, file: string) => boolean): string[] {
  return files.flatMap((f) => importsOf(f).filter((spec) => bad(spec, f)).map((spec) => `${relative(ROOT, f)} -> ${spec}`));
}

const packagesOnly = (spec: string) => !spec.startsWith(".");


describe("the intended picture", () => {
  it("has one entry per top-level folder and file of src/, and none that is gone", () => {
    expect([...modules].sort()).toEqual(readdirSync(SRC).sort());
  });

  it("the vocabulary is a leaf: src/argerror may import only the generated code, and src/model nothing", () => {
    expect(allowed("argerror")).toEqual(["gen"]);
    expect(allowed("model")).toEqual([]);
    expect(allowed("gen")).toEqual([]);
  });

  it("the core knows no wire and no lane: it may import only the vocabulary, the model, storage and embedders", () => {
    expect(allowed("core").filter((m) => !["argerror", "model", "store", "embed"].includes(m))).toEqual([]);
  });

  it("storage never calls up: src/store may import only the vocabulary, the model and the worker loader", () => {
    expect(allowed("store").filter((m) => !["argerror", "model", "worker-start.ts"].includes(m))).toEqual([]);
  });

  it("the lanes never import each other", () => {
    for (const lane of LANES) expect(allowed(lane).filter((m) => lanes.includes(m)), lane).toEqual([]);
  });

  it("auth is below the lanes: it may import only the vocabulary and the model, and every server lane may import it", () => {
    expect(allowed("auth").filter((m) => !["argerror", "model"].includes(m))).toEqual([]);
    for (const lane of ["connect", "mcp"] as const) expect(allowed(lane)).toContain("auth");
    expect(allowed("core")).not.toContain("auth");
  });

  it("nothing below the lanes imports a lane, the listener or the composition root; only the CLI (client and operator verbs) starts the app", () => {
    const above = [...lanes, "operator-cli", "app.ts", "server"];
    for (const m of modules.filter((x) => !above.includes(x))) {
      expect(allowed(m).filter((x) => above.includes(x)), m).toEqual([]);
    }
    expect(modules.filter((m) => (allowed(m) as readonly string[]).includes("app.ts"))).toEqual(["cli", "operator-cli"]);
  });

  it("the command line runs one way: src/cli registers src/operator-cli's verbs and operator-cli never imports cli; what both use is src/cli-kit, below both", () => {
    expect(allowed("cli")).toContain("operator-cli");
    expect(allowed("operator-cli")).not.toContain("cli");
    for (const half of ["cli", "operator-cli"] as const) expect(allowed(half), half).toContain("cli-kit");
    expect(allowed("cli-kit").filter((m) => ["cli", "operator-cli", ...lanes, "app.ts", "server"].includes(m))).toEqual([]);
  });
});

describe("the code follows the picture", () => {
  it("every relative import lands in a module its own module may import", () => {
    const bad = modules.flatMap((m) =>
      offenders(filesOf(m), (spec, f) => {
        if (!spec.startsWith(".")) return false;
        const target = targetOf(f, spec);
        if (target === undefined) return false;
        const to = moduleOf(target);
        return to !== m && !allowed(m).includes(to as never);
      }),
    );
    expect(bad).toEqual([]);
  });

  it("the core loads no wire package, not even the Connect status codes", () => {
    expect(offenders(filesOf("core"), (s) => packagesOnly(s) && isPackage(s, [...WIRE_PACKAGES, "@connectrpc/connect"]))).toEqual([]);
  });

  it("auth and the model load no wire package: a subject is found the same way for every lane", () => {
    const files = [...filesOf("auth"), ...filesOf("model")];
    expect(offenders(files, (s) => packagesOnly(s) && isPackage(s, [...WIRE_PACKAGES, "@connectrpc/connect"]))).toEqual([]);
  });

  it("storage, embedders and operators load no wire package", () => {
    const files = (["store", "embed", "operator"] as const).flatMap(filesOf);
    expect(offenders(files, (s) => packagesOnly(s) && isPackage(s, WIRE_PACKAGES))).toEqual([]);
  });

  it("the vocabulary's one wire package is protobuf, to build the typed error details from the generated types", () => {
    const wire = WIRE_PACKAGES.filter((p) => p !== "@bufbuild/protobuf");
    expect(offenders(filesOf("argerror"), (s) => packagesOnly(s) && isPackage(s, wire))).toEqual([]);
  });

  it("a backend's driver is loaded inside src/store only, and each backend loads only its own", () => {
    const outside = modules.filter((m) => m !== "store").flatMap(filesOf);
    const bad = offenders(outside, (s, f) => packagesOnly(s) && isPackage(s, BACKEND_DRIVERS) && !OPERATOR_DEBT.has(relative(ROOT, f)));
    expect(bad).toEqual([]);
    const qdrant = sourceFiles(join(SRC, "store/qdrant"));
    const embedded = sourceFiles(join(SRC, "store/embedded"));
    expect(offenders(qdrant, (s) => isPackage(s, ["better-sqlite3", "node:sqlite", "usearch"]))).toEqual([]);
    expect(offenders(embedded, (s) => isPackage(s, ["@qdrant/js-client-rest"]))).toEqual([]);
  });

  it("operator verbs reach a backend only through the Store port, the shared store modules or a backend's index and operator port", () => {
    const verbs = [...filesOf("operator"), ...filesOf("operator-cli")];
    const bad = offenders(verbs, (spec, f) => {
      const target = spec.startsWith(".") ? targetOf(f, spec) : undefined;
      if (target === undefined || moduleOf(target) !== "store") return false;
      const parts = target.split("/");
      if (parts.length === 2) return false; // the port and what both backends share
      if (parts[1] === "migrations") return false; // the migration engine both backends run
      return !(parts.length === 3 && ["index.js", "operator-port.js"].includes(parts[2]!));
    });
    expect(bad).toEqual([]);
  });

  it("every operator file allowed a driver still needs the allowance (the list only shrinks)", () => {
    for (const file of OPERATOR_DEBT.keys()) {
      expect(importsOf(join(ROOT, file)).some((s) => isPackage(s, BACKEND_DRIVERS)), file).toBe(true);
    }
  });
});

describe("the check itself", () => {
  it("sees relative, dynamic, type-only and re-exporting imports", () => {
    const core = filesOf("core").flatMap((f) => importsOf(f).filter((s) => s.startsWith(".")).map((s) => moduleOf(targetOf(f, s)!)));
    expect(core).toContain("model");
    expect(core).toContain("store");
    // cli/server-config.ts loads the bearer lanes with import(); core/index.ts re-exports with `export … from`.
    expect(importsOf(join(SRC, "cli/server-config.ts"))).toContain("../auth/index.js");
    expect(importsOf(join(SRC, "core/index.ts"))).toContain("./operations.js");
  });
});
