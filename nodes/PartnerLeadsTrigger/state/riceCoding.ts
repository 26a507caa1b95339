/**
 * A set of random keys stored sorted, as the gaps between them (Rice codes): n keys of `keyBits`
 * bits take about keyBits - log2(n) + 2 bits each instead of keyBits, and nothing of a key is
 * lost. The parameter follows from n, so a reader needs only the count.
 */

/** 2^0 to 2^53, looked up: computed powers cost more than the rest of a key's code */
const POW2 = Array.from({ length: 54 }, (_, exponent) => 2 ** exponent);

/** Low bits written plainly per gap: about log2 of the mean gap. */
function riceBits(count: number, keyBits: number): number {
	return Math.max(0, keyBits - Math.ceil(Math.log2(Math.max(1, count))));
}

/** Bytes the codes of these keys take (`sorted`: ascending, no key twice). */
function codedBytes(sorted: number[], lowBits: number): number {
	const unit = POW2[lowBits];
	let bits = 0;
	let previous = 0;
	for (const key of sorted) {
		bits += Math.floor((key - previous) / unit) + 1 + lowBits;
		previous = key;
	}
	return Math.ceil(bits / 8);
}

/** The keys' codes, padded to a whole byte (`sorted`: ascending, no key twice). */
export function riceEncode(sorted: number[], keyBits: number): Buffer {
	const lowBits = riceBits(sorted.length, keyBits);
	const unit = POW2[lowBits];
	const bytes = Buffer.alloc(codedBytes(sorted, lowBits));
	let at = 0;
	// bits not yet written, fewer than 8 between writes: with at most 24 added, below 2^31
	let pending = 0;
	let pendingBits = 0;
	const write = (value: number, width: number) => {
		pending = pending * POW2[width] + value;
		pendingBits += width;
		while (pendingBits >= 8) {
			pendingBits -= 8;
			const byte = Math.floor(pending / POW2[pendingBits]);
			bytes[at++] = byte;
			pending -= byte * POW2[pendingBits];
		}
	};
	let previous = 0;
	for (const key of sorted) {
		const gap = key - previous;
		previous = key;
		// the quotient in unary: that many ones, then a zero
		let quotient = Math.floor(gap / unit);
		for (; quotient >= 24; quotient -= 24) write(0xffffff, 24);
		write((POW2[quotient] - 1) * 2, quotient + 1);
		// the remainder's bits, high first, 24 at a time
		const low = gap - Math.floor(gap / unit) * unit;
		for (let left = lowBits; left > 0; left -= Math.min(24, left)) {
			const width = Math.min(24, left);
			write(Math.floor(low / POW2[left - width]) % POW2[width], width);
		}
	}
	if (pendingBits > 0) bytes[at] = pending * POW2[8 - pendingBits];
	return bytes;
}

/**
 * `count` keys read from `bytes` at `offset`; `end`: the offset after their codes. Undefined when
 * the bytes end first (a damaged copy).
 */
export function riceDecode(
	bytes: Buffer,
	offset: number,
	count: number,
	keyBits: number,
): { keys: number[]; end: number } | undefined {
	const lowBits = riceBits(count, keyBits);
	let at = offset;
	// bits read and not yet used: the low `pendingBits` bits of `pending`, fewer than 32
	let pending = 0;
	let pendingBits = 0;
	const fill = (width: number): boolean => {
		while (pendingBits < width) {
			if (at >= bytes.length) return false;
			pending = pending * 256 + bytes[at++];
			pendingBits += 8;
		}
		return true;
	};
	const take = (width: number): number => {
		pendingBits -= width;
		const value = Math.floor(pending / POW2[pendingBits]);
		pending -= value * POW2[pendingBits];
		return value;
	};
	const keys: number[] = [];
	let previous = 0;
	for (let index = 0; index < count; index++) {
		let quotient = 0;
		for (;;) {
			if (!fill(1)) return undefined;
			if (take(1) === 0) break;
			quotient++;
		}
		let low = 0;
		for (let left = lowBits; left > 0; left -= Math.min(24, left)) {
			const width = Math.min(24, left);
			if (!fill(width)) return undefined;
			low = low * POW2[width] + take(width);
		}
		previous += quotient * POW2[lowBits] + low;
		keys.push(previous);
	}
	return { keys, end: at };
}
