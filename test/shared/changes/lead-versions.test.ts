import { type LeadVersion, LeadVersions, leadKey } from '../../../nodes/shared/changes/versions';

/**
 * The ledger of versions run (delivered, recovered and deletes run for the webhook trigger, the
 * Polling Trigger's `ran`): what is stored reads back as each lead's newest version, whatever
 * order the versions came in, in a few bytes a lead.
 */

const NOW = Date.parse('2026-12-07T12:00:00.000Z');

/** A generator of the same numbers on every run (no test depends on Math.random). */
function numbers(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
		return state / 2 ** 31;
	};
}

/** The ledger as another process reads it from static data. */
function readBack(stored: string): LeadVersions {
	const read = new LeadVersions();
	read.merge(JSON.parse(JSON.stringify(stored)), 0);
	return read;
}

const storedBytes = (versions: LeadVersions) => Buffer.from(versions.pack(), 'base64').length;

describe('the ledger of versions run', () => {
	it("reads back each lead's newest version, whatever order the versions came in", () => {
		const next = numbers(7);
		const ledger = new LeadVersions();
		const newest = new Map<string, LeadVersion>();
		const times = [0, 1, NOW, NOW - 73 * 3_600_000, 2 ** 47 - 1, NOW + 1];
		for (let raise = 0; raise < 20_000; raise++) {
			const key = leadKey(`lead-${Math.floor(next() * 3_000)}`);
			// mostly close to the last, some far back or ahead, some at the edges of the range
			const ms =
				raise % 97 === 0 ? times[raise % times.length] : NOW + Math.floor((next() - 0.3) * 1e7);
			const version = { ms, exact: next() < 0.5 };
			ledger.raise(key, version);
			const known = newest.get(key);
			if (!known || known.ms < ms || (known.ms === ms && version.exact)) newest.set(key, version);
		}
		const read = readBack(ledger.pack());
		expect(newest.size).toBeGreaterThan(2_900);
		for (const [key, version] of newest) {
			expect(ledger.get(key)).toEqual(version);
			expect(read.get(key)).toEqual(version);
		}
	});

	it('takes a few bytes a lead at a bulk import, and no more than a twelfth more for leads raised again', () => {
		// 3,600 leads, one every 167 ms or so (6 a second): a key of 6 bytes, a difference of 2
		const next = numbers(11);
		const ledger = new LeadVersions();
		let ms = NOW;
		for (let lead = 0; lead < 3_600; lead++) {
			ms += 100 + Math.floor(next() * 130);
			ledger.raise(leadKey(`lead-${lead}`), { ms, exact: false });
		}
		// the first version is whole: 7 bytes more
		expect(storedBytes(ledger)).toBe(3_600 * 8 + 5);
		// against 12 bytes a lead with the version stored whole
		expect(storedBytes(ledger)).toBeLessThan(3_600 * 12 * 0.7);

		// the same 200 leads changed 20,000 times: the replaced entries go at a twelfth
		const updated = new LeadVersions();
		for (let change = 0; change < 20_000; change++) {
			ms += 100 + Math.floor(next() * 130);
			updated.raise(leadKey(`lead-${change % 200}`), { ms, exact: true });
			expect(storedBytes(updated)).toBeLessThanOrEqual(Math.floor((200 * 13) / 12 + 1) * 8 + 5);
		}
		const read = readBack(updated.pack());
		for (let lead = 0; lead < 200; lead++)
			expect(read.get(leadKey(`lead-${lead}`))).toEqual(updated.get(leadKey(`lead-${lead}`)));
	});

	it('takes at most 11 bytes an entry, under 12 a lead, for versions within 24 days in any order', () => {
		const next = numbers(5);
		const ledger = new LeadVersions();
		for (let raise = 0; raise < 5_000; raise++) {
			// every other version at one end of the 24 days, then the other
			const end = raise % 2 === 0 ? 0 : 2 ** 31 - 1;
			ledger.raise(leadKey(`lead-${raise % 4_000}`), {
				ms: NOW + Math.abs(end - Math.floor(next() * 1_000)),
				exact: true,
			});
			// a version raised again is an entry more, at most a twelfth; the first one whole
			const entries = Math.min(raise + 1, Math.floor((4_000 * 13) / 12) + 1);
			expect(storedBytes(ledger)).toBeLessThanOrEqual(entries * 11 + 2);
		}
		// 4,000 leads: stored whole they took 12 bytes each
		expect(storedBytes(ledger)).toBeLessThan(4_000 * 12);
	});

	it("keeps each lead's newest when two processes' saves are read into one", () => {
		const mine = new LeadVersions();
		const theirs = new LeadVersions();
		for (let lead = 0; lead < 500; lead++) {
			mine.raise(leadKey(`lead-${lead}`), { ms: NOW + lead * 2, exact: false });
			theirs.raise(leadKey(`lead-${lead}`), { ms: NOW + 600 - lead, exact: lead % 2 === 0 });
		}
		mine.merge(theirs.pack(), NOW - 5);
		const read = readBack(mine.pack());
		for (let lead = 0; lead < 500; lead++) {
			const expected =
				lead * 2 > 600 - lead
					? { ms: NOW + lead * 2, exact: false }
					: { ms: NOW + 600 - lead, exact: lead % 2 === 0 };
			expect(read.get(leadKey(`lead-${lead}`))).toEqual(expected);
		}
		expect(mine.forgottenUpTo).toBe(NOW - 5);
	});

	it('reads a damaged copy as far as it is whole, and never a version no lead had', () => {
		const ledger = new LeadVersions();
		const written: Array<[string, LeadVersion]> = [];
		for (let lead = 0; lead < 40; lead++) {
			const entry: [string, LeadVersion] = [
				leadKey(`lead-${lead}`),
				{ ms: NOW + (lead % 3 === 0 ? -lead * 1e6 : lead * 1e3), exact: lead % 2 === 1 },
			];
			written.push(entry);
			ledger.raise(...entry);
		}
		const bytes = Buffer.from(ledger.pack(), 'base64');
		for (let cut = 0; cut <= bytes.length; cut++) {
			const read = new LeadVersions();
			read.merge(bytes.subarray(0, cut).toString('base64'), NOW);
			const named = written.filter(([key]) => read.get(key) !== undefined);
			// the leads read are the first ones written, each with its own version
			expect(named).toEqual(written.slice(0, named.length));
			for (const [key, version] of named) expect(read.get(key)).toEqual(version);
			expect(read.forgottenUpTo).toBe(NOW);
		}
		expect(written.every(([key]) => readBack(ledger.pack()).get(key))).toBe(true);
		// a copy of something else: nothing throws, the time forgotten is still taken
		for (const stored of ['', 'not base64 at all', Buffer.alloc(64, 255).toString('base64'), 42]) {
			const read = new LeadVersions();
			expect(() => read.merge(stored, 5)).not.toThrow();
			expect(read.forgottenUpTo).toBe(5);
		}
	});
});
