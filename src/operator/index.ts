export { scan, recordsWithCitations, operatorFlip, operatorQuery } from "./spine-review.js";
export type { ScanReport, ScanRow, OperatorFlipRow } from "./spine-review.js";
export { verifyRecords, verifyCitation, failsOn, TIERS, FAIL_ON } from "./verify-citations.js";
export type { VerifyReport, CitationFinding, Tier, FailOn } from "./verify-citations.js";
export { repoIdentity, normalizeRemote, scopeRepo } from "./repo-identity.js";
export { reindex } from "./reindex.js";
export type { ReindexReport, ReindexProgress } from "./reindex.js";
