/**
 * Why a signed request from another region was refused (signatures.ts), a fixed list so the
 * refusal counter's `reason` label has a bounded set of values (docs/operations.md, Metrics).
 * Kept apart from signatures.ts so the metrics module can list them without loading the
 * signature library.
 */
export const REGION_REFUSAL_REASONS = ['unsigned', 'malformed', 'unknown_key', 'bad_signature', 'digest_mismatch', 'stale', 'replayed'] as const;
export type RegionRefusalReason = (typeof REGION_REFUSAL_REASONS)[number];

/** The region label of a refusal whose sender is not known (no signature, or a kid no peer lists). */
export const UNKNOWN_REGION = 'unknown';
