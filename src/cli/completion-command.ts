import type { Command, Option } from "commander";
import { listValues } from "../cli-kit/index.js";
import { commandPath, isSwitch, walkCommands } from "./catalog.js";

/**
 * `engram completion bash|zsh|fish`: a completion script generated from the command
 * tree, so a new verb or flag is completable without editing this file.
 */

function fixedValues(o: Option): readonly string[] | undefined {
  return o.argChoices ?? listValues(o);
}

function shellWords(words: readonly string[]): string {
  return words.join(" ");
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function bashCompletion(root: Command): string {
  const bin = root.name();
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, "_")}_complete`;
  const nodes = [root, ...walkCommands(root)];
  const paths = walkCommands(root).map(commandPath);

  const valueFlags = new Map<string, string>(); // flag -> completion action
  const cases: string[] = [];
  for (const node of nodes) {
    const subs = node.commands.map((c) => c.name());
    if (node === root) subs.push("help");
    const flags: string[] = ["--help"];
    for (const o of node.options) {
      if (o.hidden) continue;
      for (const f of [o.long, o.short]) if (f) flags.push(f);
      if (!isSwitch(o) && o.long) {
        const values = fixedValues(o);
        if (values) valueFlags.set(o.long, `COMPREPLY=($(compgen -W ${quote(values.join(" "))} -- "$cur"))`);
        else if (/<path>/.test(o.flags)) valueFlags.set(o.long, `COMPREPLY=($(compgen -f -- "$cur"))`);
        else if (!valueFlags.has(o.long)) valueFlags.set(o.long, "COMPREPLY=()");
      }
    }
    cases.push(`    ${quote(commandPath(node))}) words=${quote(shellWords([...subs, ...flags]))} ;;`);
  }

  const valueCases = [...valueFlags.entries()].map(([flag, action]) => `    ${flag}) ${action}; return 0 ;;`);

  return [
    `# bash completion for ${bin}; generated from the command tree by \`${bin} completion bash\`.`,
    `# Load it with:  source <(${bin} completion bash)`,
    `${fn}() {`,
    `  local cur prev path word i words`,
    `  cur="\${COMP_WORDS[COMP_CWORD]}"`,
    `  prev=""`,
    `  if (( COMP_CWORD > 0 )); then prev="\${COMP_WORDS[COMP_CWORD-1]}"; fi`,
    `  case "$prev" in`,
    ...valueCases,
    `  esac`,
    `  path=""`,
    `  for (( i = 1; i < COMP_CWORD; i++ )); do`,
    `    word="\${COMP_WORDS[i]}"`,
    `    case "$word" in -*) continue ;; esac`,
    `    case "\${path:+$path }$word" in`,
    ...(paths.length > 0 ? [`      ${paths.map(quote).join("|")}) path="\${path:+$path }$word" ;;`] : []),
    `    esac`,
    `  done`,
    `  case "$path" in`,
    ...cases,
    `    *) words="" ;;`,
    `  esac`,
    `  COMPREPLY=($(compgen -W "$words" -- "$cur"))`,
    `}`,
    `complete -F ${fn} ${bin}`,
    ``,
  ].join("\n");
}

type NodeWords = { path: string; subs: { name: string; summary: string }[]; flags: { long?: string; short?: string; description: string; value?: "choices" | "path" | "any"; choices?: readonly string[] }[] };

/** What each node of the tree offers, shared by the zsh and fish generators. */
function treeWords(root: Command): NodeWords[] {
  return [root, ...walkCommands(root)].map((node) => ({
    path: commandPath(node),
    subs: [
      ...node.commands.map((c) => ({ name: c.name(), summary: c.summary() || c.description() })),
      ...(node === root ? [{ name: "help", summary: "print help for a command" }] : []),
    ],
    flags: node.options
      .filter((o) => !o.hidden)
      .map((o) => ({
        long: o.long,
        short: o.short,
        description: o.description,
        ...(isSwitch(o) ? {} : fixedValues(o) ? { value: "choices" as const, choices: fixedValues(o) } : /<path>/.test(o.flags) ? { value: "path" as const } : { value: "any" as const }),
      })),
  }));
}

export function zshCompletion(root: Command): string {
  const bin = root.name();
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const nodes = treeWords(root);
  const paths = nodes.map((n) => n.path).filter((p) => p !== "");
  const valueCases = new Map<string, string>();
  for (const n of nodes) {
    for (const f of n.flags) {
      if (!f.long || !f.value) continue;
      if (f.value === "choices") valueCases.set(f.long, `compadd -- ${f.choices!.map(quote).join(" ")}; return 0`);
      else if (f.value === "path") valueCases.set(f.long, "_files; return 0");
      else if (!valueCases.has(f.long)) valueCases.set(f.long, "return 0");
    }
  }
  const cases = nodes.map((n) => {
    const subs = n.subs.map((s) => quote(`${s.name}:${s.summary.replace(/:/g, "\\:")}`));
    const flags = ["--help", ...n.flags.flatMap((f) => [f.long, f.short].filter((x): x is string => !!x))];
    return `    ${quote(n.path)}) subs=(${subs.join(" ")}); flags=(${flags.join(" ")}) ;;`;
  });
  return [
    `#compdef ${bin}`,
    `# zsh completion for ${bin}; generated from the command tree by \`${bin} completion zsh\`.`,
    `# Load it with:  source <(${bin} completion zsh)   (after compinit)`,
    `${fn}() {`,
    `  local cmdpath="" w i prev`,
    `  local -a subs flags`,
    `  for (( i = 2; i < CURRENT; i++ )); do`,
    `    w="\${words[i]}"`,
    `    [[ "$w" == -* ]] && continue`,
    `    case "\${cmdpath:+$cmdpath }$w" in`,
    ...(paths.length > 0 ? [`      ${paths.map(quote).join("|")}) cmdpath="\${cmdpath:+$cmdpath }$w" ;;`] : []),
    `    esac`,
    `  done`,
    `  prev="\${words[CURRENT-1]}"`,
    `  case "$prev" in`,
    ...[...valueCases.entries()].map(([flag, action]) => `    ${flag}) ${action} ;;`),
    `  esac`,
    `  case "$cmdpath" in`,
    ...cases,
    `    *) return 1 ;;`,
    `  esac`,
    `  if [[ "\${words[CURRENT]}" == -* ]]; then compadd -- $flags; else _describe -t commands 'command' subs; fi`,
    `}`,
    `if [[ "\${funcstack[1]}" == "${fn}" ]]; then ${fn} "$@"; else compdef ${fn} ${bin}; fi`,
    ``,
  ].join("\n");
}

export function fishCompletion(root: Command): string {
  const bin = root.name();
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, "_")}_at`;
  const nodes = treeWords(root);
  const paths = nodes.map((n) => n.path).filter((p) => p !== "");
  const lines = [
    `# fish completion for ${bin}; generated from the command tree by \`${bin} completion fish\`.`,
    `# Load it with:  ${bin} completion fish | source`,
    `function ${fn} --description 'true when the ${bin} command path typed so far is the argument'`,
    `    set -l known ${paths.map(quote).join(" ")}`,
    `    set -l cmdpath ""`,
    `    for w in (commandline -opc)[2..-1]`,
    `        string match -q -- '-*' $w; and continue`,
    `        set -l next (string trim -- "$cmdpath $w")`,
    `        contains -- $next $known; and set cmdpath $next`,
    `    end`,
    `    test "$cmdpath" = "$argv[1]"`,
    `end`,
    `complete -c ${bin} -f`,
  ];
  for (const n of nodes) {
    const cond = `-n ${quote(`${fn} ${quote(n.path)}`)}`;
    for (const s of n.subs) lines.push(`complete -c ${bin} ${cond} -a ${quote(s.name)} -d ${quote(s.summary)}`);
    for (const f of n.flags) {
      const names = [f.long ? `-l ${f.long.replace(/^--/, "")}` : "", f.short ? `-s ${f.short.replace(/^-/, "")}` : ""].filter(Boolean).join(" ");
      const value = f.value === "choices" ? ` -x -a ${quote(f.choices!.join(" "))}` : f.value === "path" ? " -r -F" : f.value === "any" ? " -x" : "";
      lines.push(`complete -c ${bin} ${cond} ${names}${value} -d ${quote(f.description)}`);
    }
  }
  return lines.join("\n") + "\n";
}

export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

export function registerCompletionCommand(program: Command): void {
  const completion = program
    .command("completion")
    .summary("print a shell completion script")
    .description("Print a shell completion script generated from the command tree.");
  completion
    .command("bash")
    .summary("print the bash completion script")
    .description("Print the bash completion script; load it with: source <(engram completion bash)")
    .action(() => {
      process.stdout.write(bashCompletion(program));
    });
  completion
    .command("zsh")
    .summary("print the zsh completion script")
    .description("Print the zsh completion script; load it after compinit with: source <(engram completion zsh)")
    .action(() => {
      process.stdout.write(zshCompletion(program));
    });
  completion
    .command("fish")
    .summary("print the fish completion script")
    .description("Print the fish completion script; load it with: engram completion fish | source")
    .action(() => {
      process.stdout.write(fishCompletion(program));
    });
}
