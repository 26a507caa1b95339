import type { IDataObject } from 'n8n-workflow';

import type { N8nHarness, NodeRun } from '../../test/harness/harness';
import type { Simulator } from '../../test/simulator/types';
import { Prng } from '../../test/simulator/ids';
import { pushParameters } from '../../test/support/fixtures';

/**
 * The action-node side of the soak: workflows that push batches of leads through n8n-core,
 * one with Lead > Create, one with Lead > Create or Update, both with Continue On Fail
 * (as a 3 a.m. sync would run), and what became of every item.
 */

export const SOAK_EMAIL_DOMAIN = 'soak.example.com';

/** What an exception from a bug looks like, as opposed to a message the node wrote. */
export const CRASH_PATTERN =
	/Cannot read propert|is not a function|is not iterable|is not defined|Invalid time value|Maximum call stack|Unexpected token|Cannot convert|circular structure|\[object Object\]|^undefined$|^null$/i;

export type PushKind = 'create' | 'upsert';

export interface ItemTally {
	pushed: number;
	created: number;
	updated: number;
	failedClearly: number;
	failedUnclearly: number;
	/** failures by what the message says, e.g. 'validation', 'HTTP 503', 'connection' */
	failuresByKind: Record<string, number>;
	/** the first message (and description) seen of each kind */
	failureSamples: Record<string, string>;
	/** samples of unclear failures, for the report */
	unclearSamples: string[];
	runs: number;
	/** runs and items per workflow */
	byKind: Record<PushKind, { runs: number; items: number }>;
	runsCrashed: number;
	crashSamples: string[];
	/** per e-mail address (lower case): what each push of it became, in order, e.g. 'upsert#12 created' */
	history: Map<string, string[]>;
}

export function emptyTally(): ItemTally {
	return {
		pushed: 0,
		created: 0,
		updated: 0,
		failedClearly: 0,
		failedUnclearly: 0,
		failuresByKind: {},
		failureSamples: {},
		unclearSamples: [],
		runs: 0,
		byKind: { create: { runs: 0, items: 0 }, upsert: { runs: 0, items: 0 } },
		runsCrashed: 0,
		crashSamples: [],
		history: new Map(),
	};
}

function kindOfFailure(message: string, httpCode: unknown): string {
	if (/token issuer|token request/i.test(message)) {
		const status = /HTTP (\d+)/.exec(message)?.[1];
		return status ? `token request failed (HTTP ${status})` : 'token request failed';
	}
	if (/^Invalid lead field/.test(message)) return 'validation (before sending)';
	if (/rejected the/.test(message)) return 'validation (service)';
	if (/^Not created: an earlier item/.test(message))
		return 'not created: an earlier item may have created it';
	if (/429/.test(message)) return 'rate limited after retries';
	if (/Could not reach/.test(message)) return 'connection dropped';
	if (httpCode !== undefined) return `HTTP ${String(httpCode)}`;
	return message.slice(0, 40);
}

function isClear(message: unknown, description: unknown): boolean {
	if (typeof message !== 'string' || message.trim().length < 10 || CRASH_PATTERN.test(message))
		return false;
	return (
		description === undefined ||
		(typeof description === 'string' && !CRASH_PATTERN.test(description))
	);
}

/** Generates the items of each batch, deterministically from a seed. */
export class LeadSource {
	private readonly random: Prng;

	private serial = 0;

	/** e-mail addresses pushed so far (valid items only), for Create or Update to revisit */
	readonly known: string[] = [];

	private readonly knownSet = new Set<string>();

	constructor(seed: number) {
		this.random = new Prng(seed);
	}

	private person(email: string): IDataObject {
		const n = this.serial++;
		const item: IDataObject = {
			firstName: `Soak${n}`,
			lastName: 'Lead',
			email,
			value: this.random.int(100_000),
		};
		if (this.random.chance(0.5))
			item.industry = this.random.pick(['saas', 'Fintech', 'retail', 'healthcare']);
		if (this.random.chance(0.3))
			item.interests = this.random.pick(['analytics', 'automation, security', 'integrations']);
		// A few items a user got wrong: the node must refuse them clearly, before sending.
		if (this.random.chance(0.03)) item.industry = 'mining';
		else if (this.random.chance(0.02)) item.email = `not-an-email-${n}`;
		return item;
	}

	private newEmail(kind: PushKind): string {
		return `${kind}-${this.serial}-${this.random.int(1e9).toString(36)}@${SOAK_EMAIL_DOMAIN}`;
	}

	batch(kind: PushKind, size: number): IDataObject[] {
		const items: IDataObject[] = [];
		while (items.length < size) {
			let email: string;
			if (kind === 'upsert' && items.length > 0 && this.random.chance(0.15)) {
				// the same lead twice in one batch, as spreadsheets often have it
				email = String(this.random.pick(items).email);
			} else if (kind === 'upsert' && this.known.length > 0 && this.random.chance(0.5)) {
				email = this.random.pick(this.known);
				// e-mail addresses match in any letter case
				if (this.random.chance(0.2)) email = email.toUpperCase();
			} else {
				email = this.newEmail(kind);
			}
			items.push(this.person(email));
		}
		return items;
	}

	/** The batch's run is over: its leads may be revisited by Create or Update. */
	settle(items: IDataObject[]): void {
		for (const item of items) {
			const email = String(item.email).toLowerCase();
			if (email.includes('@') && !this.knownSet.has(email)) {
				this.knownSet.add(email);
				this.known.push(email);
			}
		}
	}
}

function remember(tally: ItemTally, email: unknown, what: string): void {
	const key = String(email).toLowerCase();
	const entries = tally.history.get(key) ?? [];
	entries.push(what);
	tally.history.set(key, entries);
}

/** Counts what became of each item of one run. */
export function tallyRun(
	tally: ItemTally,
	items: IDataObject[],
	run: NodeRun,
	label = 'run',
): void {
	tally.runs++;
	const outputs = new Map<number, IDataObject>();
	for (const item of run.items) {
		const paired = item.pairedItem;
		if (paired !== undefined && typeof paired === 'object' && !Array.isArray(paired))
			outputs.set(paired.item, item.json);
	}
	items.forEach((item, index) => {
		const json = outputs.get(index);
		const outcome =
			json === undefined
				? 'no output'
				: json.error !== undefined
					? `failed: ${String(json.error).slice(0, 90)}`
					: String(json._action ?? 'created');
		remember(tally, item.email, `${label}#${tally.runs} item ${index}: ${outcome}`);
	});
	tally.pushed += items.length;
	if (run.error) {
		// Continue On Fail is on: a run-level error is a crash of the node, not an item failure.
		tally.runsCrashed++;
		if (tally.crashSamples.length < 5) tally.crashSamples.push(String(run.error.message));
		return;
	}
	for (const item of run.items) {
		const json = item.json;
		if (typeof json.error === 'string' || json.error !== undefined) {
			const kind = kindOfFailure(String(json.error), json.httpCode);
			tally.failuresByKind[kind] = (tally.failuresByKind[kind] ?? 0) + 1;
			tally.failureSamples[kind] ??=
				`${String(json.error)} | ${String(json.description ?? '')}`.slice(0, 400);
			if (isClear(json.error, json.description)) tally.failedClearly++;
			else {
				tally.failedUnclearly++;
				if (tally.unclearSamples.length < 5)
					tally.unclearSamples.push(JSON.stringify(json).slice(0, 300));
			}
		} else if (json._action === 'updated') tally.updated++;
		else tally.created++;
	}
	// An item with no output at all is lost work: count it as an unclear failure.
	const missing = items.length - run.items.length;
	if (missing > 0) {
		tally.failedUnclearly += missing;
		if (tally.unclearSamples.length < 5)
			tally.unclearSamples.push(`${missing} item(s) had no output`);
	}
}

/** Pushes batches until the deadline; every run is handed to `observe` (the secrets audit looks at them). */
export async function pushUntil(
	harness: N8nHarness,
	sim: Simulator,
	source: LeadSource,
	kind: PushKind,
	options: {
		deadline: number;
		batchSize: number;
		parallelRequests: number;
		tally: ItemTally;
		observe?: (where: string, value: unknown) => void;
	},
): Promise<void> {
	const parameters = pushParameters(sim, kind, options.parallelRequests);
	while (Date.now() < options.deadline) {
		const items = source.batch(kind, options.batchSize);
		options.tally.byKind[kind].runs++;
		options.tally.byKind[kind].items += items.length;
		try {
			const run = await harness.runNode({ parameters, items, continueOnFail: true });
			options.observe?.(`Lead > ${kind} run`, run.run);
			tallyRun(options.tally, items, run, kind);
		} catch (error) {
			// The harness itself threw: n8n-core could not even finish the run.
			options.tally.runs++;
			options.tally.pushed += items.length;
			options.tally.runsCrashed++;
			options.observe?.(`Lead > ${kind} crash`, error);
			if (options.tally.crashSamples.length < 5)
				options.tally.crashSamples.push(String((error as Error).message));
		}
		// Only now may the other workflow revisit these leads: two workflows creating the same
		// lead at the same moment would make a duplicate no client can prevent.
		source.settle(items);
	}
}
