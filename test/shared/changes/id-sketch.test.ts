import {
	IdSketch,
	MAX_SKETCH_ID_BYTES,
	SKETCH_NAMES_UP_TO,
	encodedId,
} from '../../../nodes/shared/changes/idSketch';
import { Prng } from '../../simulator/ids';

/**
 * The sketch a large listing is kept as: the ids gone since are read back from it, whatever
 * the portal's size, as long as they are few; beyond that it names only some and says about
 * how many it could not.
 */

const FORMS: Record<string, (ids: Prng) => string> = {
	'24-hex': (ids) => ids.hex(24),
	UUID: (ids) => {
		const h = ids.hex(32);
		return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
	},
	numeric: (ids) => String(100_000 + ids.int(900_000_000)),
	text: (ids) => `lead_${ids.hex(ids.int(20) + 1).toUpperCase()}`,
};

function idsOf(form: (ids: Prng) => string, count: number, seed: number): string[] {
	const prng = new Prng(seed);
	const ids = new Set<string>();
	while (ids.size < count) ids.add(form(prng));
	return [...ids];
}

describe('IdSketch', () => {
	it.each(Object.keys(FORMS))(
		`names all of up to ${SKETCH_NAMES_UP_TO.toLocaleString('en')} %s ids gone from 30,000, with ids taken that were never in it`,
		(form) => {
			for (const seed of [1, 2, 3]) {
				const all = idsOf(FORMS[form], 30_000 + SKETCH_NAMES_UP_TO, seed);
				const listed = all.slice(0, 30_000);
				const sketch = IdSketch.from(IdSketch.of(listed)?.stored());
				// gone: the last ones listed; new since: never in the sketch, taken out all the same
				const gone = listed.slice(-(SKETCH_NAMES_UP_TO - 300));
				const present = [...listed.slice(0, -gone.length), ...all.slice(-300)];
				const left = sketch?.leftOver(present);
				expect(left?.complete).toBe(true);
				expect(left?.unnamed).toBe(0);
				expect(new Set(left?.ids)).toEqual(new Set(gone));
				expect(left?.ids).toHaveLength(gone.length);
			}
		},
	);

	it('takes the same bytes for 10,000 ids as for 100,000, and gives the same answer from its stored form', () => {
		const many = idsOf(FORMS['24-hex'], 100_000, 7);
		const small = IdSketch.of(many.slice(0, 10_000));
		const large = IdSketch.of(many);
		const storedSmall = JSON.stringify(small?.stored());
		const storedLarge = JSON.stringify(large?.stored());
		expect(storedLarge.length).toBe(storedSmall.length);
		expect(storedLarge.length).toBeLessThanOrEqual(IdSketch.storedBytes(14));
		// 24-hex ids packed one by one take 16 bytes each: 1.6 MB for 100,000
		expect(storedLarge.length).toBeLessThan(100_000);
		const gone = many.slice(5, 25);
		const present = many.filter((id) => !gone.includes(id));
		expect(IdSketch.from(JSON.parse(storedLarge))?.leftOver(present).ids.sort()).toEqual(
			[...gone].sort(),
		);
		expect(large?.leftOver(present).ids.sort()).toEqual([...gone].sort());
		// nothing gone: nothing left
		expect(large?.leftOver(many)).toEqual({ ids: [], complete: true, unnamed: 0 });
	});

	it('with far more gone than it can name, names only ids that are gone and says about how many it could not', () => {
		const listed = idsOf(FORMS['24-hex'], 40_000, 11);
		const sketch = IdSketch.of(listed) as IdSketch;
		const gone = listed.slice(0, 6_000);
		const left = sketch.leftOver(listed.slice(6_000));
		expect(left.complete).toBe(false);
		expect(left.unnamed).toBeGreaterThan(0);
		const goneSet = new Set(gone);
		for (const id of left.ids) expect(goneSet.has(id)).toBe(true);
		expect(left.ids.length + left.unnamed).toBeGreaterThan(6_000 * 0.9);
		expect(left.ids.length + left.unnamed).toBeLessThan(6_000 * 1.1);
	});

	it('says it could not read everything back when the ids taken that it never held are too many, even where they offset the count', () => {
		const all = idsOf(FORMS['24-hex'], 46_000, 13);
		const listed = all.slice(0, 40_000);
		const sketch = IdSketch.of(listed) as IdSketch;
		// 10 gone, 6,000 taken that were never in it: the count of what is left is below zero
		const left = sketch.leftOver([...listed.slice(10), ...all.slice(40_000)]);
		expect(left.complete).toBe(false);
		expect(left.unnamed).toBe(0);
		for (const id of left.ids) expect(listed.slice(0, 10)).toContain(id);
	});

	it(`keeps no id longer than ${MAX_SKETCH_ID_BYTES} bytes encoded, and reads back nothing that is not a sketch`, () => {
		expect(encodedId('x'.repeat(MAX_SKETCH_ID_BYTES - 2))).toBeDefined();
		expect(encodedId('x'.repeat(MAX_SKETCH_ID_BYTES - 1))).toBeUndefined();
		expect(IdSketch.of(['a1', 'x'.repeat(MAX_SKETCH_ID_BYTES)])).toBeUndefined();
		const stored = IdSketch.of(['a1', 'b2'])?.stored();
		expect(IdSketch.from(stored)).toBeDefined();
		expect(IdSketch.from({ ...stored, width: (stored?.width ?? 0) + 1 })).toBeUndefined();
		expect(IdSketch.from({ ...stored, cells: 'AAAA' })).toBeUndefined();
		expect(IdSketch.from('listed')).toBeUndefined();
		expect(IdSketch.from(undefined)).toBeUndefined();
	});

	it('gives every form back as it was written', () => {
		const ids = ['00ab', '123e4567-e89b-12d3-a456-426614174000', '1234567', 'ABCDEF', 'lead é 1'];
		const sketch = IdSketch.of(ids) as IdSketch;
		expect(sketch.leftOver([]).ids.sort()).toEqual([...ids].sort());
	});
	it('compares two sketches built a slice at a time: the ids of the first not in the second, ids of every width, an id added twice only using up room', () => {
		for (const form of Object.keys(FORMS)) {
			const all = idsOf(FORMS[form], 20_300, 21);
			const last = all.slice(0, 20_000);
			// this sweep: the last less 100 gone, 300 new, 50 listed twice, added in slices
			const gone = last.slice(5_000, 5_100);
			const listedAgain = [...last.slice(0, 5_000), ...last.slice(5_100), ...all.slice(20_000)];
			let current = IdSketch.of([]) as IdSketch;
			for (let at = 0; at < listedAgain.length; at += 700)
				current = current.with(listedAgain.slice(at, at + 700)) as IdSketch;
			current = current.with(last.slice(0, 50)) as IdSketch;
			const lastSketch = IdSketch.from(IdSketch.of(last)?.stored()) as IdSketch;
			const left = lastSketch.without(IdSketch.from(current.stored()) as IdSketch);
			expect({ form, complete: left.complete, ids: left.ids.sort() }).toEqual({
				form,
				complete: true,
				ids: [...gone].sort(),
			});
		}
	});

	it('widens a sketch for a longer id and compares it with a narrower one', () => {
		const short = ['a1', 'b2', 'c3'];
		const long = '123e4567-e89b-12d3-a456-426614174000';
		const narrow = IdSketch.of(short) as IdSketch;
		const wide = narrow.with([long]) as IdSketch;
		expect(wide.width).toBeGreaterThan(narrow.width);
		expect(wide.without(narrow).ids).toEqual([long]);
		expect(narrow.without(IdSketch.of(['b2']) as IdSketch).ids.sort()).toEqual(['a1', 'c3']);
		expect(narrow.with(['x'.repeat(MAX_SKETCH_ID_BYTES)])).toBeUndefined();
	});
});
