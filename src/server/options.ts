import type { AuthFailure, AuthLane, Authenticator, ConsoleSignIn, ProtectedResource } from "../auth/index.js";
import type { Handler } from "../node-http.js";

export type ServerOptions = {
  /** "host:port", e.g. "127.0.0.1:8080"; port 0 picks a free port; "[::1]:0" for IPv6. */
  listenAddr: string;
  /** The connectNodeAdapter handler (serves /engram.v1.EngramService/*). */
  connect: Handler;
  /** Mounted at `mcpPath` when given. */
  mcp?: Handler;
  /** Default "/mcp". */
  mcpPath?: string;
  /** Guards the MCP, Connect and /metrics routes: 401 when auth is on and the bearer is missing or wrong. */
  auth: Authenticator;
  /** RFC 9728: the document served at its well-known paths, and the URL every 401 points at. */
  protectedResource?: ProtectedResource;
  /** Console sign-in through the issuer (its routes under /ui/, and the session cookie lane on Connect). */
  consoleSignIn?: ConsoleSignIn;
  /** Told the lane and failure class of every refused credential (the /metrics counter); never the credential. */
  onUnauthenticated?: (lane: AuthLane, failure: AuthFailure) => void;
  /** Structured log sink. */
  log: (line: Record<string, unknown>) => void;
  /**
   * The Prometheus exposition for GET /metrics. It reports across owners
   * (record counts, traffic), so it sits behind the same bearer check as MCP
   * and Connect; the probes stay open because they disclose only up/ready.
   */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** The parts not ready to serve yet, as fixed words (e.g. "index"); always ready when absent. */
  waiting?: () => readonly string[];
  /** Origins a browser page may call from, besides the server's own (see `allowedOriginsFromEnv`). */
  allowedOrigins?: readonly string[];
  /** How long a request may take to arrive in full, headers and body; default REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /** The built console (`npm run build`); default dist/ui under the package root. */
  consoleDir?: string;
};

export type RunningServer = {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
};
