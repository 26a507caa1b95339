/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What the webhook trigger keeps in static data as its history grows (issue 68): its records
 * (state/records.ts, the stores every delivery saves whole) driven as a stream of deliveries
 * drives them, with the checks for missed events the trigger makes (every 6 hours, earlier
 * after RECOVERY_TIMING.earlyAfterRuns runs: trigger.ts), at two rates, two portal sizes and
 * three points of history. Prints the bytes (their range over rounds; the most they were on the
 * way there, as the stores grow between two checks), those of each store, and the time one
 * delivery's records take (what a delivery adds to n8n's own work), min / median / max over rounds.
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/static-data.ts
 *
 * The bytes n8n writes per delivery in the real app, beside its Webhook node: bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import type { IDataObject } from 'n8n-workflow';

import { RECOVERY_TIMING } from '../nodes/PartnerLeadsTrigger/recovery/timing';
import { RunRecords } from '../nodes/PartnerLeadsTrigger/state/records';
import { savingOnceAfter } from '../nodes/shared/state/nodeStore';
import { DEFAULT_CHECK_INTERVAL_MINUTES } from '../nodes/PartnerLeadsTrigger/trigger';
import { runMain } from './processes';

const HISTORY = [0, 3_000, 20_000];
const PORTALS = [200, 50_000];
/** a bulk import (6 events a second) and a quiet portal (one event every 26 s: 10,000 in 72 h) */
const RATES = [
	{ name: '6/s', gapMs: 1000 / 6 },
	{ name: '1/26 s', gapMs: 26_000 },
];
const ROUNDS = 3;
/** Deliveries timed at each point of history: their records' work, not the stream's. */
const TIMED = 200;

const hexId = () => randomBytes(12).toString('hex');

interface Point {
	bytes: number;
	stores: Record<string, number>;
	/** the most the stream's static data took before this point (sampled every 50 deliveries) */
	peakBytes: number;
	/** ms per delivery's records at this point (one per round) */
	msPerDelivery: number;
}

/**
 * One trigger's stream: 6 in 10 events create a lead, the others update one. Each delivery
 * records as the trigger does (its event seen, its version delivered, the lead run since the
 * listing) and saves; a check listens up to its time and keeps the listing. The last `timed`
 * deliveries are timed; the stream ends now.
 */
function stream(
	portal: number,
	events: number,
	gapMs: number,
	timed = TIMED,
): { nodeData: IDataObject; peakBytes: number; msPerDelivery: number } {
	const realNow = Date.now;
	const ids = Array.from({ length: portal }, hexId);
	let now = realNow() - (events + timed) * gapMs;
	Date.now = () => now;
	try {
		const nodeData: IDataObject = {};
		const records = new RunRecords(nodeData, `bench:${hexId()}:production`, 72 * 3600, []);
		records.ledger.startListening();
		records.ledger.takeBaseline(now - 10_000, []);
		records.ledger.rememberListing({ ids, newestCreatedMs: now });
		let checkedAt = now;
		const deliver = (index: number) => {
			now += gapMs;
			const created = index % 10 < 6;
			const leadId = created ? hexId() : ids[index % ids.length];
			if (created) ids.push(leadId);
			const timestamp = new Date(now).toISOString();
			const run = { key: hexId(), topic: 'lead/update' as const, leadId, timestamp };
			records.finished({ ...run, attempts: 1, origin: 'delivered' }, { ms: now, exact: false });
			const due =
				now - checkedAt >= DEFAULT_CHECK_INTERVAL_MINUTES * 60_000 ||
				(now - checkedAt >= RECOVERY_TIMING.earlySpacingMs &&
					records.ledger.runsSinceCheck >= RECOVERY_TIMING.earlyAfterRuns);
			if (due) {
				records.ledger.listenedUpTo(now - RECOVERY_TIMING.settleMs);
				records.ledger.rememberListing({ ids, newestCreatedMs: now });
				checkedAt = now;
			}
		};
		// between two checks the stores grow: the most they took, not only where the stream ends
		let peakBytes = 0;
		for (let index = 0; index < events; index++) {
			deliver(index);
			if (index % 50 === 49) peakBytes = Math.max(peakBytes, JSON.stringify(nodeData).length);
		}
		// the deliveries timed: their records and the JSON n8n makes of the static data to save it
		const started = performance.now();
		for (let index = events; index < events + timed; index++) {
			deliver(index);
			JSON.stringify(nodeData);
		}
		const msPerDelivery = (performance.now() - started) / Math.max(1, timed);
		peakBytes = Math.max(peakBytes, JSON.stringify(nodeData).length);
		return { nodeData, peakBytes, msPerDelivery };
	} finally {
		Date.now = realNow;
	}
}

/**
 * What the trigger node keeps after a stream of `events` deliveries at a bulk import's rate,
 * ending now: the real app's history seed (n8n-app/history.ts).
 */
export function historyOf(events: number): IDataObject {
	return stream(200, events, RATES[0].gapMs, 0).nodeData;
}

function pointOf(portal: number, events: number, gapMs: number): Point {
	const { nodeData, peakBytes, msPerDelivery } = stream(portal, events, gapMs);
	const stores: Record<string, number> = {};
	for (const [store, value] of Object.entries(nodeData))
		for (const [field, stored] of Object.entries((value as IDataObject) ?? {}))
			stores[`${store}.${field}`] = JSON.stringify(stored).length;
	return { bytes: JSON.stringify(nodeData).length, stores, peakBytes, msPerDelivery };
}

const spread = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const show = (value: number) => value.toFixed(3);
	return `${show(sorted[0])} / ${show(sorted[Math.floor(sorted.length / 2)])} / ${show(sorted[sorted.length - 1])}`;
};

/** Bytes over rounds, min-max: the events seen vary with where the stream's ten minutes fall. */
function range(values: number[]): string {
	const sorted = [...values].sort((a, b) => a - b);
	const [low, high] = [sorted[0], sorted[sorted.length - 1]];
	return low === high
		? low.toLocaleString('en')
		: `${low.toLocaleString('en')}-${high.toLocaleString('en')}`;
}

/**
 * A check that finds `count` missed leads records each (its version recovered, its run in flight),
 * as recover.ts does: with every store saved once after all of them, or (the baseline, as before
 * issue 68's last step) once per lead. Returns the ms.
 */
function missedLeadsMs(count: number, savedOnce: boolean): number {
	const now = Date.now();
	const records = new RunRecords({}, `bench:${hexId()}:production`, 72 * 3600, []);
	records.ledger.startListening();
	records.ledger.takeBaseline(now - 10_000, []);
	records.ledger.rememberListing({ ids: [], newestCreatedMs: now });
	const timestamp = new Date(now).toISOString();
	const started = performance.now();
	const recordAll = () => {
		for (let index = 0; index < count; index++) {
			const id = hexId();
			records.ledger.recordRecovered(id, now);
			records.recovered(`recovered\n${id}\n${now}`, 'lead/create', id, timestamp);
		}
	};
	if (savedOnce) savingOnceAfter(recordAll);
	else recordAll();
	return performance.now() - started;
}

async function main(): Promise<void> {
	console.log(
		'| missed leads a check finds | ms, stores saved per lead | ms, saved once after all | ratio |',
	);
	console.log('|---|---|---|---|');
	for (const count of [1_000, 4_000, 12_000]) {
		const [perLead, once]: number[][] = [[], []];
		for (let round = 0; round < ROUNDS; round++) {
			perLead.push(missedLeadsMs(count, false));
			once.push(missedLeadsMs(count, true));
		}
		const ratios = perLead.map((ms, round) => ms / once[round]);
		console.log(
			`| ${count.toLocaleString('en')} | ${spread(perLead)} | ${spread(once)} | ${spread(ratios)} |`,
		);
	}
	console.log();
	console.log(
		'| rate | portal | events seen | static data (min-max) | the most on the way | largest stores (last round) | ms per delivery min / median / max |',
	);
	console.log('|---|---|---|---|---|---|---|');
	for (const rate of RATES)
		for (const portal of PORTALS)
			for (const events of HISTORY) {
				const points: Point[] = [];
				// rounds of one point after another would see the machine's load move: alternate
				for (let round = 0; round < ROUNDS; round++)
					points.push(pointOf(portal, events, rate.gapMs));
				const last = points[points.length - 1];
				const largest = Object.entries(last.stores)
					.filter(([, bytes]) => bytes >= 1_000)
					.sort((a, b) => b[1] - a[1])
					.map(([store, bytes]) => `${store} ${bytes.toLocaleString('en')}`)
					.join(', ');
				console.log(
					`| ${rate.name} | ${portal.toLocaleString('en')} | ${events.toLocaleString('en')} | ${range(points.map((point) => point.bytes))} B | ${range(points.map((point) => point.peakBytes))} B | ${largest} | ${spread(points.map((point) => point.msPerDelivery))} |`,
				);
			}
}

if (require.main === module) runMain(main);
