import type { IDataObject } from 'n8n-workflow';

import {
	LEDGER_CAPACITY,
	RecoveryLedger,
} from '../../../nodes/PartnerLeadsTrigger/state/recoveryLedger';
import { MAX_IDS_RUN_SINCE_LISTING } from '../../../nodes/PartnerLeadsTrigger/state/knownLeadIds';
import { packedBytes, packIds } from '../../../nodes/shared/changes/leadIds';
import { listingOf } from '../../../nodes/PartnerLeadsTrigger/recovery/deletes';
import { IdSketch } from '../../../nodes/shared/changes/idSketch';
import { LeadVersions, leadKey } from '../../../nodes/shared/changes/versions';

/**
 * The ledger in static data that n8n saves whole, last writer wins: what each process wrote
 * survives another process's save of an older copy, and its size stays bounded.
 */

const HOUR = 3600;
const NOW = Date.parse('2026-03-01T12:00:00.000Z');

// n8n's clock (Date.now), which the ledger reads for Maximum Event Age and activations
beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(NOW));
afterEach(() => jest.restoreAllMocks());

/**
 * One n8n process: its own memory (scope, one per test: each test starts with processes that
 * hold nothing), loading and saving the database's JSON copy.
 */
function processAt(name: string, database: { saved: string }) {
	const scope = `${expect.getState().currentTestName}:${name}`;
	return {
		write(change: (ledger: RecoveryLedger) => void): void {
			const nodeData = JSON.parse(database.saved) as IDataObject;
			change(
				new RecoveryLedger(nodeData, scope, {
					maxAgeSeconds: 72 * HOUR,
				}),
			);
			database.saved = JSON.stringify(nodeData);
		},
		read(): RecoveryLedger {
			return new RecoveryLedger(JSON.parse(database.saved) as IDataObject, `${scope}-reader`, {
				maxAgeSeconds: 72 * HOUR,
			});
		},
	};
}

describe('recovery ledger', () => {
	it('two processes saving older copies in turn lose no record: the next save writes the union', () => {
		const database = { saved: '{}' };
		const first = processAt('process-1', database);
		const second = processAt('process-2', database);
		const stale = database.saved;
		first.write((ledger) => ledger.recordDelivered('lead-x', { ms: NOW - 1000, exact: true }));
		// process 2 had loaded the copy before process 1 saved
		database.saved = stale;
		second.write((ledger) => ledger.recordRecovered('lead-y', NOW - 500));
		expect(first.read().hasRun('lead-x', NOW - 1000)).toBe(false);
		first.write((ledger) => ledger.recordDelivered('lead-z', { ms: NOW - 100, exact: true }));
		const merged = first.read();
		expect(merged.hasRun('lead-x', NOW - 1000)).toBe(true);
		expect(merged.hasRun('lead-y', NOW - 500)).toBe(true);
		expect(merged.hasRun('lead-z', NOW - 100)).toBe(true);
	});

	it('an exact version covers only itself; an event time covers changes up to 5 s later', () => {
		const database = { saved: '{}' };
		const writer = processAt('process-1', database);
		writer.write((ledger) => {
			ledger.recordDelivered('exact', { ms: NOW - 10_000, exact: true });
			ledger.recordDelivered('approximate', { ms: NOW - 10_000, exact: false });
			ledger.recordRecovered('recovered', NOW - 10_000);
		});
		const ledger = writer.read();
		expect(ledger.hasRun('exact', NOW - 10_000)).toBe(true);
		expect(ledger.hasRun('exact', NOW - 9_999)).toBe(false);
		expect(ledger.hasRun('approximate', NOW - 5_000)).toBe(true);
		expect(ledger.hasRun('approximate', NOW - 4_999)).toBe(false);
		expect(ledger.mayBeRecovered('recovered', NOW - 5_000)).toBe(true);
		expect(ledger.mayBeRecovered('recovered', NOW - 4_999)).toBe(false);
		expect(ledger.mayBeRecovered('exact', NOW - 10_000)).toBe(false);
	});

	it('a check forgets the versions delivered before its since (they can no longer cover a change it judges) and keeps the rest', () => {
		const database = { saved: '{}' };
		const writer = processAt('process-1', database);
		const before = database.saved.length;
		writer.write((ledger) => {
			ledger.startListening();
			ledger.takeBaseline(NOW - 600_000, []);
			for (let index = 0; index < 3_000; index++)
				ledger.recordDelivered(`lead-${index}`, { ms: NOW - 300_000 + index * 100, exact: false });
			ledger.recordRecovered('recovered', NOW - 200_000);
		});
		const grown = database.saved.length - before;
		expect(writer.read().runsSinceCheck).toBe(0);
		writer.write((ledger) => {
			expect(ledger.runsSinceCheck).toBe(3_000);
			// a check listened up to NOW - 100 s: deliveries before it (by more than the 5 s an
			// event time may be off from its updatedAt) are forgotten, later ones kept
			ledger.listenedUpTo(NOW - 100_000);
			ledger.rememberListing(undefined);
			expect(ledger.runsSinceCheck).toBe(0);
		});
		// a process that reads it now (one that read it before may write the old versions back
		// until its own next save a minute later forgets them too)
		const ledger = processAt('later', database).read();
		const versionOf = (index: number) => NOW - 300_000 + index * 100;
		const cutoffIndex = (300_000 - 100_000 - 5_000) / 100;
		expect(ledger.hasRun(`lead-${cutoffIndex - 1}`, versionOf(cutoffIndex - 1))).toBe(false);
		expect(ledger.hasRun(`lead-${cutoffIndex}`, versionOf(cutoffIndex))).toBe(true);
		expect(ledger.hasRun('lead-2999', versionOf(2999))).toBe(true);
		// nothing at or before since is judged, so nothing forgotten can run again
		expect(ledger.recoverAfterMs).toBe(NOW - 100_000);
		// the late retry of a recovered change is still known for Maximum Event Age
		expect(ledger.mayBeRecovered('recovered', NOW - 200_000)).toBe(true);
		// what is kept: the 1,050 leads delivered since, 16 characters each
		expect(database.saved.length - before).toBeLessThan(grown / 2.5);
	});

	it('stays within its capacity and Maximum Event Age, and never recovers before what it forgot', () => {
		// 50 leads more than the capacity, all within Maximum Event Age
		const count = LEDGER_CAPACITY + 50;
		const delivered = (index: number) => ({ ms: NOW - 60_000 + index, exact: true });
		// The first deliveries, below the capacity, ran in another process: its save is read here,
		// packed as the ledger packs it (each save packs the whole ledger, so 10,050 saves in one
		// test would take seconds). The last 100 run here: 50 fill it, 50 go past.
		const elsewhere = LEDGER_CAPACITY - 50;
		const earlier = new LeadVersions();
		for (let index = 0; index < elsewhere; index++)
			earlier.raise(leadKey(`lead-${index}`), delivered(index));
		const database = { saved: JSON.stringify({ recovery: { delivered: earlier.pack() } }) };
		const writer = processAt('process-1', database);
		writer.write((ledger) => {
			ledger.startListening();
			// the activation's baseline: listening from before the deliveries (service time)
			ledger.takeBaseline(NOW - 120_000, []);
			for (let index = elsewhere; index < count; index++)
				ledger.recordDelivered(`lead-${index}`, delivered(index));
			ledger.recordRecovered('too-old', NOW - 73 * HOUR * 1000);
		});
		const stored = (
			JSON.parse(database.saved) as { recovery: { delivered: string; recovered: string } }
		).recovery;
		// Past the capacity a tenth more is forgotten (so not every save sorts): at the 10,001st
		// lead the oldest 1,001 went, and 49 came since. Stored per lead as its 6-byte key and,
		// versions 1 ms apart, a 1-byte difference; the first version whole (7 bytes).
		const kept = LEDGER_CAPACITY * 0.9 + 49;
		const bytes = Buffer.from(stored.delivered, 'base64').length;
		expect(bytes).toBe(kept * 7 + 6);
		expect(stored.delivered.length).toBe(Math.ceil(bytes / 3) * 4);
		expect(stored.recovered).toBe('');
		const ledger = writer.read();
		expect(ledger.hasRun(`lead-${count - 1}`, NOW - 60_000 + count - 1)).toBe(true);
		const firstKept = count - kept;
		expect(ledger.hasRun(`lead-${firstKept}`, NOW - 60_000 + firstKept)).toBe(true);
		expect(ledger.hasRun(`lead-${firstKept - 1}`, NOW - 60_000 + firstKept - 1)).toBe(false);
		expect(ledger.hasRun('lead-0', NOW - 60_000)).toBe(false);
		// nothing at or before the newest forgotten version is recovered: it may have run
		expect(ledger.recoverAfterMs).toBe(NOW - 60_000 + firstKept - 1);
	});

	describe('lead ids known for deletes', () => {
		const hex = (n: number) => n.toString(16).padStart(24, '0');
		// every id known: the ones a check that lists no lead finds gone
		const knownIds = (ledger: RecoveryLedger) => {
			const gone = ledger.goneFrom([]);
			return gone && new Set(gone.ids);
		};

		it('are the last listing and every lead run since, from any process; a new listing keeps only those it does not hold', () => {
			const database = { saved: '{}' };
			const trigger = processAt('trigger', database);
			const webhook = processAt('webhook', database);
			trigger.write((ledger) => ledger.rememberListing({ ids: [hex(1), hex(2)] }));
			webhook.write((ledger) => ledger.recordDelivered(hex(3), { ms: NOW - 1000, exact: true }));
			trigger.write((ledger) => ledger.recordRecovered(hex(4), NOW - 500));
			expect([...(knownIds(trigger.read()) ?? [])].sort()).toEqual([1, 2, 3, 4].map(hex));
			// a listing that holds 1 and 3; 4 was created while it was read; 2's delete ran
			trigger.write((ledger) => {
				ledger.recordDeleted(hex(2), NOW);
				ledger.rememberListing({ ids: [hex(1), hex(3)] });
			});
			expect([...(knownIds(trigger.read()) ?? [])].sort()).toEqual([1, 3, 4].map(hex));
			// without lead/delete chosen nothing is kept, not even the leads run since
			trigger.write((ledger) => ledger.rememberListing(undefined));
			webhook.write((ledger) => ledger.recordDelivered(hex(5), { ms: NOW, exact: true }));
			expect(knownIds(trigger.read())).toBeUndefined();
			expect(database.saved).not.toContain('idsRunSince');
		});

		it('a lead a packed listing holds is not kept again when it runs; one it does not hold is', () => {
			const database = { saved: '{}' };
			const trigger = processAt('trigger', database);
			const webhook = processAt('webhook', database);
			const listing = Array.from({ length: 500 }, (_, n) => hex(n + 1));
			trigger.write((ledger) => ledger.rememberListing({ ids: listing }));
			// 400 runs of listed leads in another process: nothing more to save of their ids
			webhook.write((ledger) => {
				for (let n = 1; n <= 400; n++)
					ledger.recordDelivered(hex(n), { ms: NOW - 1000 + n, exact: true });
			});
			const saved = JSON.parse(database.saved) as { recovery: IDataObject };
			expect(saved.recovery.idsRunSince).toBeUndefined();
			// a lead created since the listing is kept beside it
			webhook.write((ledger) => ledger.recordDelivered(hex(1_001), { ms: NOW, exact: true }));
			expect(
				(JSON.parse(database.saved) as { recovery: IDataObject }).recovery.idsRunSince,
			).toBeDefined();
			// the leads gone are the same: listed ones that ran, and the one created since
			const gone = trigger.read().goneFrom([]);
			expect(gone?.ids.sort()).toEqual([...listing, hex(1_001)].sort());
			expect(
				trigger
					.read()
					.goneFrom(
						listing.slice(3).map((id) => ({ id, version: NOW, createdMs: NOW, lead: { id } })),
					)
					?.ids.sort(),
			).toEqual([hex(1), hex(2), hex(3), hex(1_001)].sort());
		});

		it('a listing is kept in the smaller form: packed while that takes no more than its sketch (3,751 leads with 24-hex ids), the sketch from one lead more', () => {
			const ids = Array.from({ length: 5_000 }, (_, n) => hex(n + 1));
			const sketchBytes = IdSketch.storedBytes(IdSketch.of(ids)?.width ?? 0);
			// the most leads whose packed ids take no more than the sketch (they grow with the count)
			let [packedUpTo, tooMany] = [0, ids.length];
			while (tooMany - packedUpTo > 1) {
				const count = Math.floor((packedUpTo + tooMany) / 2);
				if (packedBytes(packIds(ids.slice(0, count))) <= sketchBytes) packedUpTo = count;
				else tooMany = count;
			}
			expect(packedUpTo).toBe(3_751);
			const keptAs = (count: number) => {
				const database = { saved: '{}' };
				processAt(`${count}`, database).write((ledger) =>
					ledger.rememberListing({ ids: ids.slice(0, count), newestCreatedMs: NOW }),
				);
				const recovery = (JSON.parse(database.saved) as { recovery: IDataObject }).recovery;
				return Object.keys(recovery).filter((key) => key.startsWith('listed'));
			};
			expect(keptAs(packedUpTo)).toEqual(['listedIds']);
			expect(keptAs(packedUpTo + 1)).toEqual(['listedSketch']);
		});

		it('a listing larger packed than its sketch is kept as the sketch: leads gone are named, those whose delete ran are not, and past what it can name it says about how many', () => {
			const database = { saved: '{}' };
			const trigger = processAt('trigger', database);
			const webhook = processAt('webhook', database);
			const ids = Array.from({ length: 20_000 }, (_, n) => hex(n + 1));
			const listed = (from: string[]) =>
				from.map((id) => ({ id, version: NOW, createdMs: NOW - 1000, lead: { id } }));
			trigger.write((ledger) => ledger.rememberListing({ ids, newestCreatedMs: NOW - 1000 }));
			expect(database.saved).not.toContain('listedIds');
			expect(database.saved.length).toBeLessThan(IdSketch.storedBytes(14) + 1000);
			// created since the listing (newer than its newest): never in the sketch, not counted
			const created = listed([hex(30_001)]).map((lead) => ({ ...lead, createdMs: NOW }));
			// 1's delete ran in another process; 2..6 gone unseen; 30,002 ran since, never listed
			webhook.write((ledger) => {
				ledger.recordDeleted(hex(1), NOW);
				ledger.recordDelivered(hex(30_002), { ms: NOW, exact: true });
			});
			const present = [...listed(ids.slice(6)), ...created];
			const gone = trigger.read().goneFrom(present);
			expect(gone?.complete).toBe(true);
			expect(gone?.ids.sort()).toEqual([2, 3, 4, 5, 6, 30_002].map(hex).sort());

			const many = trigger.read().goneFrom(listed(ids.slice(8_000)));
			expect(many?.complete).toBe(false);
			expect(many?.unnamed).toBeGreaterThan(5_000);
			const named = (many?.ids ?? []).filter((id) => id !== hex(30_002));
			for (const id of named) expect(Number.parseInt(id, 16)).toBeLessThanOrEqual(8_000);
			expect(named.length + (many?.unnamed ?? 0)).toBeGreaterThan(8_000 * 0.9);
		});

		it('a sketched listing with a lead without createdAt still leaves out the leads created since it: 3,000 new leads and 5 gone read back in full', () => {
			const database = { saved: '{}' };
			const trigger = processAt('trigger', database);
			const lead = (id: string, createdMs: number | undefined) => ({
				id,
				version: NOW,
				createdMs,
				lead: { id },
			});
			const ids = Array.from({ length: 20_000 }, (_, n) => hex(n + 1));
			const listed = ids.map((id, n) => lead(id, n === 0 ? undefined : NOW - 60_000));
			trigger.write((ledger) => ledger.rememberListing(listingOf(listed)));
			const created = Array.from({ length: 3_000 }, (_, n) => lead(hex(50_001 + n), NOW));
			const gone = trigger.read().goneFrom([...listed.slice(5), ...created]);
			expect(gone?.complete).toBe(true);
			expect(gone?.ids.sort()).toEqual(ids.slice(0, 5).sort());
		});

		it(`keep at most ${MAX_IDS_RUN_SINCE_LISTING.toLocaleString('en')} leads run since the listing, the newest`, () => {
			const database = { saved: '{}' };
			const trigger = processAt('trigger', database);
			const total = MAX_IDS_RUN_SINCE_LISTING + 5;
			trigger.write((ledger) => {
				ledger.rememberListing({ ids: [] });
				for (let n = 1; n <= total; n++) ledger.recordRecovered(hex(n), NOW);
			});
			const known = knownIds(trigger.read()) ?? new Set();
			expect(known.size).toBe(MAX_IDS_RUN_SINCE_LISTING);
			expect(known.has(hex(total))).toBe(true);
			expect(known.has(hex(5))).toBe(false);
		});
	});
});
