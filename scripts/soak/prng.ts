/** A small seeded PRNG (mulberry32), so a soak with the same seed generates the same items. */
export class Prng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	chance(share: number): boolean {
		return this.next() < share;
	}

	int(below: number): number {
		return Math.floor(this.next() * below);
	}

	pick<T>(values: readonly T[]): T {
		return values[this.int(values.length)];
	}
}
