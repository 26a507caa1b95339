/**
 * Figures the editor states and the documents repeat, kept here once: the nodes' texts are built
 * from these constants, and the documentation test (test/docs/figures.test.ts) checks that every
 * page gives the same figures and that they follow from the bounds in the code.
 */

/**
 * Lead IDs the Polling Trigger keeps to find deleted leads: 1,000,000 bytes of packed IDs
 * (MAX_LEAD_ID_BYTES, nodes/shared/changes/leadIds.ts; the webhook trigger keeps a large
 * listing as a sketch of fixed size, idSketch.ts). A 24-character hex ID
 * packs to 16 characters, a UUID (36 characters, e.g. 123e4567-e89b-12d3-a456-426614174000) to
 * 21.3.
 */
export const KEPT_LEAD_IDS = { hex24: 62_500, uuid: 46_875 } as const;

/**
 * What Fields to Watch costs per lead, in bytes, with the status watched and with five fields
 * (status, value, platform, close date, a custom picklist), as test/shared/changes/
 * watched-values.test.ts measures it; at most WATCHED_VALUES_MAX_MB in all (MAX_WATCHED_BYTES).
 */
export const WATCHED_BYTES_PER_LEAD = { oneField: 41, fiveFields: 86 } as const;
export const WATCHED_VALUES_MAX_MB = 2;

/** A figure as the documents write it: 62,500. */
export function figure(value: number): string {
	return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** What Fields to Watch keeps and costs, in the trigger's words (`saved`: when n8n saves it). */
export function watchedValuesCost(saved: string): string {
	return `The trigger keeps these fields' values for every lead, saved with the workflow ${saved}: ${figure(WATCHED_BYTES_PER_LEAD.oneField)} bytes a lead for one field, ${figure(WATCHED_BYTES_PER_LEAD.fiveFields)} for five, at most ${WATCHED_VALUES_MAX_MB} MB (the leads changed longest ago are forgotten first). Of a value longer than 64 characters it keeps only enough to tell that it changed: its change shows "to" without "from".`;
}
