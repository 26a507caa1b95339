/** Figures the editor and docs state, kept once; test/docs/figures.test.ts checks them. */

/** Lead IDs kept packed (PACKED_LISTING_UP_TO_BYTES): a 24-hex ID packs to 16 bytes, a UUID to 21.3. */
export const PACKED_LEAD_IDS = { hex24: 6_250, uuid: 4_687 } as const;

/** Fields to Watch bytes per lead (status; five fields), as watched-values.test.ts measures. */
export const WATCHED_BYTES_PER_LEAD = { oneField: 17, fiveFields: 24 } as const;
export const WATCHED_VALUES_MAX_MB = 2;

/** A figure as the documents write it: 62,500. */
export function figure(value: number): string {
	return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** What Fields to Watch keeps and costs, in the trigger's words (`saved`: when n8n saves it). */
export function watchedValuesCost(saved: string): string {
	return `The trigger keeps these fields' values for every lead, saved with the workflow ${saved}: ${figure(WATCHED_BYTES_PER_LEAD.oneField)} bytes a lead for one field, ${figure(WATCHED_BYTES_PER_LEAD.fiveFields)} for five, at most ${WATCHED_VALUES_MAX_MB} MB (the leads changed longest ago are forgotten first). Of a value longer than 64 characters it keeps only enough to tell that it changed: its change shows "to" without "from".`;
}
