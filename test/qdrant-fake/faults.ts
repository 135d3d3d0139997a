import { matchesRequest, type RequestInfo, type RequestMatcher } from "./request-info.js";

/**
 * The failures a store must map to the vocabulary. Messages follow Qdrant's own: disk-full is the
 * 500 its local shard raises when the WAL buffer does not fit, rate limiting is strict mode's 429.
 */
export type Fault =
  | { readonly kind: "status"; readonly status: number; readonly message?: string }
  | { readonly kind: "rate-limited"; readonly retryAfterSeconds: number }
  | { readonly kind: "out-of-disk" }
  | { readonly kind: "read-only"; readonly message?: string }
  /** Never answers (until the fake closes): the client's timeout fires. */
  | { readonly kind: "hang" }
  /** Destroys the socket without a response: the client sees a reset connection. */
  | { readonly kind: "reset" };

export const OUT_OF_DISK_MESSAGE =
  "Service internal error: No space left on device: WAL buffer size exceeds available disk space";

export interface FaultRule {
  readonly match?: RequestMatcher;
  readonly fault: Fault;
  /** How many matching requests to fail; Infinity until cleared. Default 1. */
  readonly times?: number;
}

export interface FaultHandle {
  /** How many requests this rule has failed so far. */
  readonly hits: number;
  clear(): void;
}

interface ActiveRule {
  readonly match?: RequestMatcher;
  readonly fault: Fault;
  remaining: number;
  hits: number;
}

/** Per-route or next-N-requests fault switches, consulted in the order they were injected. */
export class FaultInjector {
  private rules: ActiveRule[] = [];

  inject(rule: FaultRule): FaultHandle {
    const active: ActiveRule = { match: rule.match, fault: rule.fault, remaining: rule.times ?? 1, hits: 0 };
    this.rules.push(active);
    return {
      get hits() {
        return active.hits;
      },
      clear: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  /** Fail the next `n` requests of any kind. */
  nextRequests(n: number, fault: Fault): FaultHandle {
    return this.inject({ fault, times: n });
  }

  clear(): void {
    this.rules = [];
  }

  /** The fault to apply to this request, consuming one use of the first matching rule. */
  take(req: RequestInfo): Fault | undefined {
    const rule = this.rules.find((r) => r.remaining > 0 && matchesRequest(r.match, req));
    if (!rule) return undefined;
    rule.remaining -= 1;
    rule.hits += 1;
    if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
    return rule.fault;
  }
}
