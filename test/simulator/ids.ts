import { randomBytes, randomUUID } from 'node:crypto';

/**
 * mulberry32: a tiny seedable PRNG. Used for fault dice and generated ids so a given
 * `seed` replays the same run. Never used for secrets or tokens (those use node:crypto).
 */
export class Prng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** uniform in [0, 1) */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** true with probability `rate` (0..1); consumes a draw only when 0 < rate < 1 */
	chance(rate: number | undefined): boolean {
		if (!rate || rate <= 0) return false;
		if (rate >= 1) return true;
		return this.next() < rate;
	}

	int(maxExclusive: number): number {
		return Math.floor(this.next() * maxExclusive);
	}

	pick<T>(items: readonly T[]): T {
		return items[this.int(items.length)];
	}

	hex(length: number): string {
		let out = '';
		while (out.length < length) {
			out += Math.floor(this.next() * 4294967296)
				.toString(16)
				.padStart(8, '0');
		}
		return out.slice(0, length);
	}
}

export function randomSeed(): number {
	return randomBytes(4).readUInt32LE(0);
}

/** Unguessable value for secrets and tokens. */
export function randomSecret(prefix: string, bytes = 24): string {
	return prefix + randomBytes(bytes).toString('base64url');
}

export function newRequestId(): string {
	return 'req_' + randomUUID().replace(/-/g, '');
}

/** ISO 8601 UTC with milliseconds, as the spec requires for timestamps. */
export function isoNow(): string {
	return new Date().toISOString();
}

export const HEX24 = /^[0-9a-f]{24}$/;
