/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { RERUN_MARK } from '../../nodes/PartnerLeadsTrigger/runs/executor';
import { ROOT } from '../docs/markdown';
import { SHIPPED_SOURCE, tsFiles } from '../docs/source-messages';

/**
 * What an example's note may say about what the nodes do by themselves and what they cannot do.
 * A note that speaks of missed events, downtime, duplicates, recovery or what never runs must say
 * one of these claims, and the claim must hold for the code as it is: when the code changes
 * (a limitation lifted, a feature gone), the note that states the old behaviour fails.
 */

const trigger = new PartnerLeadsTrigger().description;
const polling = new PartnerLeadsPollingTrigger().description;
const parameter = (name: string) => trigger.properties.find((property) => property.name === name);
const recoversByDefault = () => parameter('recoverMissedEvents')?.default === true;

export interface NoteClaim {
	says: RegExp;
	/** What the claim is, and what in the code makes it hold. */
	what: string;
	holds: () => boolean;
}

export const NOTE_CLAIMS: NoteClaim[] = [
	{
		says: /duplicate deliveries are dropped/i,
		what: 'the webhook trigger drops duplicate deliveries (it remembers every event within its Ignore Events Older Than window)',
		holds: () =>
			(parameter('options')?.options ?? []).some(
				(option) => 'name' in option && option.name === 'maxEventAgeHours',
			),
	},
	{
		says: /(updates?|creates?|changes?)\b[^.]*while n8n was (stopped|down)( or unreachable)?[^.]*run once/i,
		what: 'the webhook trigger runs the creates and updates missed while n8n was down once it is back (Recover Missed Events, on by default)',
		holds: recoversByDefault,
	},
	{
		says: /(missed|lost)\b[^.]*while n8n (is|was) (down|stopped)|while n8n (is|was) (down|stopped)[^.]*\b(missed|lost)/i,
		what: 'events sent while n8n is down are lost (true only while the trigger does not recover them)',
		holds: () => !recoversByDefault(),
	},
	{
		says: /delet\w*[^.]*\b(not|never|cannot) (be )?recover/i,
		what: "deleted leads are not recovered (the trigger's notice under Recover Missed Events says so)",
		holds: () =>
			trigger.properties.some(
				(property) =>
					property.type === 'notice' &&
					/deleted leads cannot be recovered/i.test(property.displayName),
			),
	},
	{
		says: /change made while n8n was down is recovered[^.]*with its `from`/i,
		what: 'a watched field changed while n8n was down runs once it is back, with the value before as `from` (Recover Missed Events on by default, Fields to Watch on the trigger)',
		holds: () => recoversByDefault() && parameter('watchedFields') !== undefined,
	},
	{
		says: /a run again after n8n stopped in the middle \(marked `recovered`\)/i,
		what: 'the webhook trigger runs again, marked `recovered`, an event whose run n8n stopped in the middle (RERUN_MARK)',
		holds: () => RERUN_MARK.recovered,
	},
	{
		says: /holds when you publish never run/i,
		what: "the leads the portal holds when the workflow is published never run (the polling trigger's publish message says so)",
		holds: () => /never run/.test(polling.activationMessage ?? ''),
	},
	{
		says: /\bpoll\b[^.]*also after n8n was stopped/i,
		what: 'a poll after n8n was stopped runs what changed meanwhile (a polling node compares the list with what ran)',
		holds: () => polling.polling === true,
	},
];

/** Words that make a sentence a claim about missed events, downtime, duplicates or recovery. */
export const CLAIM_WORDS =
	/\b(miss(ed|es)?|lost|lose|cannot|can't|never|recover(ed|s)?|no replay|duplicates?|while n8n|n8n (is|was) (down|stopped|unreachable))\b/i;

/** The sentences of a note (a line may hold several; list items are sentences of their own). */
export function sentencesOf(note: string): string[] {
	return note
		.split('\n')
		.flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z*`])/))
		.map((sentence) => sentence.trim())
		.filter(Boolean);
}

/** Problems of one note: sentences making a claim no entry covers, or one that no longer holds. */
export function claimProblems(note: string): string[] {
	return sentencesOf(note)
		.filter((sentence) => CLAIM_WORDS.test(sentence))
		.flatMap((sentence) => {
			const claims = NOTE_CLAIMS.filter((claim) => claim.says.test(sentence));
			if (claims.length === 0)
				return [
					`"${sentence}" speaks of what the nodes do about missed events, downtime, duplicates or recovery, but says none of the claims test/examples/note-claims.ts knows: add the claim there, with what makes it hold`,
				];
			return claims
				.filter((claim) => !claim.holds())
				.map((claim) => `"${sentence}" says ${claim.what}, which no longer holds`);
		});
}

/** Whether a word (an output field the note names, e.g. `recovered: true`) is in the shipped code. */
export function shippedCodeHasWord(word: string): boolean {
	const pattern = new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);
	return SHIPPED_TEXT.some((text) => pattern.test(text));
}

const SHIPPED_TEXT = SHIPPED_SOURCE.flatMap((folder) =>
	tsFiles(join(ROOT, folder)).map((file) => readFileSync(file, 'utf8')),
);
