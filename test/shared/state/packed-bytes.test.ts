import { PackedBytes } from '../../../nodes/shared/state/packedBytes';

/** Appends `text` as a store does: room first, then the bytes at `used`. */
function append(packed: PackedBytes, text: string): number {
	const moved = packed.room(text.length);
	packed.bytes.write(text, packed.used, 'latin1');
	packed.used += text.length;
	packed.changed();
	return moved;
}

const decoded = (packed: PackedBytes) =>
	Buffer.from(packed.toBase64(), 'base64').toString('latin1');

describe('a store’s packed bytes', () => {
	it('keeps every byte appended as it grows past its first allocation', () => {
		const packed = new PackedBytes(8);
		const parts = Array.from({ length: 50 }, (_, index) => `entry-${index};`);
		for (const part of parts) append(packed, part);
		expect(decoded(packed)).toBe(parts.join(''));
		expect(packed.bytes.length).toBeGreaterThanOrEqual(packed.used);
	});

	it('gives the base64 of the bytes as written now, made again only after a change', () => {
		const packed = new PackedBytes(16);
		append(packed, 'abc');
		const first = packed.toBase64();
		// written in place without saying so: the base64 made before stays (the caller says changed)
		packed.bytes.write('x', 0, 'latin1');
		expect(packed.toBase64()).toBe(first);
		packed.changed();
		expect(decoded(packed)).toBe('xbc');
	});

	it('forgets the oldest bytes by moving start, and moves the live bytes to the front when it grows', () => {
		const packed = new PackedBytes(8);
		append(packed, 'oldest');
		packed.start += 'old'.length;
		packed.changed();
		expect(decoded(packed)).toBe('est');
		// 6 of 8 bytes used: 4 more do not fit, so the live bytes move 3 to the front
		expect(append(packed, 'next')).toBe(3);
		expect(packed.start).toBe(0);
		expect(decoded(packed)).toBe('estnext');
		// room left: nothing moves
		expect(packed.room(1)).toBe(0);
	});
});
