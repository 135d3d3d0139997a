import { matchesRequest, type RequestInfo, type RequestMatcher } from "./request-info.js";

/**
 * `before-apply` parks a request before it touches state (another store's write can land first);
 * `before-response` applies it, then withholds the answer (the write has landed, the caller
 * does not know yet).
 */
export type HoldPhase = "before-apply" | "before-response";

export interface Hold {
  /** Resolves with the request once one matching request is parked. */
  readonly reached: Promise<RequestInfo>;
  /** Lets the parked request (and any later matched one) go on; idempotent. */
  release(): void;
}

interface ActiveHold {
  readonly match?: RequestMatcher;
  readonly phase: HoldPhase;
  remaining: number;
  readonly gate: Promise<void>;
  readonly open: () => void;
  readonly arrived: (req: RequestInfo) => void;
}

/** Interleaving control: pause chosen requests until the test releases them. */
export class HoldRegistry {
  private holds: ActiveHold[] = [];

  /** Parks the next `times` (default 1) requests matching `match` at `phase`. */
  hold(match?: RequestMatcher, options: { phase?: HoldPhase; times?: number } = {}): Hold {
    let open!: () => void;
    let arrived!: (req: RequestInfo) => void;
    const gate = new Promise<void>((r) => (open = r));
    const reached = new Promise<RequestInfo>((r) => (arrived = r));
    const active: ActiveHold = { match, phase: options.phase ?? "before-apply", remaining: options.times ?? 1, gate, open, arrived };
    this.holds.push(active);
    return {
      reached,
      release: () => {
        this.holds = this.holds.filter((h) => h !== active);
        open();
      },
    };
  }

  /** Waits while a hold for this phase covers the request. */
  async pass(req: RequestInfo, phase: HoldPhase): Promise<void> {
    const h = this.holds.find((x) => x.phase === phase && x.remaining > 0 && matchesRequest(x.match, req));
    if (!h) return;
    h.remaining -= 1;
    h.arrived(req);
    await h.gate;
  }

  releaseAll(): void {
    for (const h of this.holds) h.open();
    this.holds = [];
  }
}
