/**
 * The bytes a store keeps packed for static data, appended or written in place as its entries
 * change, so a save writes bytes already made; their base64 is made once per change (every
 * delivery saves). Forgetting the oldest entries moves `start`.
 */
export class PackedBytes {
	bytes = Buffer.alloc(0);

	start = 0;

	used = 0;

	private base64: string | undefined;

	constructor(private readonly minimumBytes: number) {}

	/**
	 * Room for `count` more bytes at `used`: grown by doubling, the live bytes moved to the front.
	 * Returns how far they moved, for positions the caller holds.
	 */
	room(count: number): number {
		if (this.used + count <= this.bytes.length) return 0;
		const moved = this.start;
		const live = this.used - this.start;
		const grown = Buffer.alloc(Math.max(this.minimumBytes, this.bytes.length * 2, live + count));
		this.bytes.copy(grown, 0, this.start, this.used);
		this.bytes = grown;
		this.start = 0;
		this.used = live;
		return moved;
	}

	/** The bytes were written: the next save makes their base64 again. */
	changed(): void {
		this.base64 = undefined;
	}

	toBase64(): string {
		this.base64 ??= this.bytes.toString('base64', this.start, this.used);
		return this.base64;
	}
}
