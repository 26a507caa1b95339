import type { IDataObject } from 'n8n-workflow';

import { IdSketch, type LeftOver } from '../shared/changes/idSketch';

/**
 * A portal whose ids packed pass PACKED_LISTING_UP_TO_BYTES keeps the sweeps' ids as two sketches
 * of a fixed size (the webhook trigger's, nodes/shared/changes/idSketch.ts): the last whole
 * sweep's and this one's so far. When a sweep ends, the ids of the last not in this one are the
 * leads that may be gone (confirmGone.ts asks for each).
 */
export class SweepSketches {
	private constructor(
		/** undefined: no whole sweep before this one was sketched */
		private readonly last: IdSketch | undefined,
		private current: IdSketch,
	) {}

	/** From the ids a sweep kept so far, and those of the last whole sweep where it had them. */
	static of(lastSweep: Iterable<string> | undefined, thisSweep: Iterable<string>) {
		const current = IdSketch.of(thisSweep);
		if (!current) return undefined;
		return new SweepSketches(lastSweep && IdSketch.of(lastSweep), current);
	}

	static read(stored: IDataObject): SweepSketches | undefined {
		const sketches = (stored.sketches ?? {}) as IDataObject;
		const current = IdSketch.from(sketches.current);
		return current && new SweepSketches(IdSketch.from(sketches.last), current);
	}

	/** Listed by this sweep's slice (read once each: the next slice starts after it). */
	listed(ids: string[]): boolean {
		const current = this.current.with(ids);
		if (current) this.current = current;
		return current !== undefined;
	}

	/**
	 * The leads the last sweep listed and this one did not, once it has listed these too
	 * (undefined: no whole sweep before this one was sketched).
	 */
	unlistedAfter(ids: string[]): LeftOver | undefined {
		const current = this.current.with(ids);
		return current && this.last?.without(current);
	}

	/** The sweep ended: it becomes the last, and the next starts empty. */
	next(): SweepSketches {
		return new SweepSketches(this.current, IdSketch.of([]) as IdSketch);
	}

	stored(): IDataObject {
		return {
			sketches: {
				...(this.last ? { last: this.last.stored() as unknown as IDataObject } : {}),
				current: this.current.stored() as unknown as IDataObject,
			},
		};
	}
}
