import type { Command } from "commander";
import { commandPath, walkCommands } from "./catalog.js";

/**
 * `engram completion bash`: a completion script generated from the command
 * tree, so a new verb or flag is completable without editing this file.
 */

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
      if (!o.isBoolean() && o.long) {
        if (o.argChoices) valueFlags.set(o.long, `COMPREPLY=($(compgen -W ${quote(o.argChoices.join(" "))} -- "$cur"))`);
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
}
