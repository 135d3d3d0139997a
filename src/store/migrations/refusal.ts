import { ArgError } from "../../argerror/index.js";

export type IrreversibleStep = { from: number; to: number; reason: string };
export type UnsupportedVersion = { version: number; count: number };

export type RevertPlan = {
  to: number;
  candidates: number;
  irreversible: IrreversibleStep[];
  unsupported: UnsupportedVersion[];
};

export function reversible(plan: RevertPlan): boolean {
  return plan.irreversible.length === 0 && plan.unsupported.length === 0;
}

function unsupportedClause(u: readonly UnsupportedVersion[], to: number): string {
  return u.map((x) => `${x.count} record(s) at version ${x.version} have no reachable chain to target ${to}`).join("; ");
}

/**
 * One envelope per refusal. Irreversible outranks unsupported (migrating
 * forward again cannot cure it) and folds the unsupported versions in as an
 * extra clause.
 */
export function refusalError(plan: RevertPlan): ArgError | undefined {
  if (reversible(plan)) return undefined;
  const tail = "recovery is a collection snapshot";
  if (plan.irreversible.length > 0) {
    const steps = plan.irreversible.map((s) => `step (From=${s.from} To=${s.to}) is irreversible: ${s.reason}`).join("; ");
    const extra = plan.unsupported.length > 0 ? `; additionally, ${unsupportedClause(plan.unsupported, plan.to)}` : "";
    return new ArgError(["steps"], "irreversible", `revert cannot reach v${plan.to}: ${steps}${extra}; ${tail}`);
  }
  return new ArgError(["record_version"], "unsupported", `${unsupportedClause(plan.unsupported, plan.to)}; ${tail}`);
}
