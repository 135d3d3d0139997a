/**
 * How `engram delete-all` shows a preview. The count is the server's own
 * (DeleteAll with dry_run), so the CLI decides nothing about which records
 * a delete would reach.
 */

export type DeleteAllPreview = { scope: string; wouldDelete: bigint };

export function previewDocument(p: DeleteAllPreview): unknown {
  return { dry_run: true, scope: p.scope, would_delete: Number(p.wouldDelete) };
}

export function previewText(p: DeleteAllPreview): string {
  return p.wouldDelete === 0n
    ? `preview: you own no records in scope ${p.scope}; nothing to delete`
    : `preview: delete-all would delete ${p.wouldDelete} record(s) you own in scope ${p.scope}; nothing was deleted (run again with --yes)`;
}
