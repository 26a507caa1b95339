import type { ListedLead } from '../shared/changes/listedLead';
import type { NewestEnd, OrderSeen, PollState } from './pollState';

/**
 * Where new leads appear in the list, learnt from the list itself: the order of creation times
 * and versions a whole sweep met. Only an order shown by every lead of a sweep is relied on, and
 * each sweep learns it again (docs/design/polling.md).
 */

/** The order seen so far, with the leads of a slice in list order. */
export function orderAfter(order: OrderSeen, leads: ListedLead[]): OrderSeen {
	const next = { ...order };
	for (const { createdMs, version } of leads) {
		if (version === undefined) next.byChange = false;
		else {
			if (next.lastVersionMs !== undefined && version < next.lastVersionMs) next.byChange = false;
			next.lastVersionMs = version;
		}
		if (createdMs === undefined) {
			next.ascending = next.descending = false;
			continue;
		}
		if (next.lastCreatedMs !== undefined) {
			if (createdMs < next.lastCreatedMs) next.ascending = false;
			if (createdMs > next.lastCreatedMs) next.descending = false;
		}
		next.firstCreatedMs ??= createdMs;
		next.lastCreatedMs = createdMs;
	}
	return next;
}

/** Where new leads appear, as a whole sweep showed it; `endToken`: where that sweep ended. */
export function newestEndAfter(order: OrderSeen, endToken: string): PollState['newest'] {
	const { firstCreatedMs, lastCreatedMs } = order;
	// one creation time throughout (or none) shows no order
	const shown = firstCreatedMs !== undefined && firstCreatedMs !== lastCreatedMs;
	let end: NewestEnd = 'unknown';
	// listed by last change, new leads come last as well: they are the latest change
	if (shown && (order.ascending || order.byChange)) end = 'end';
	else if (shown && order.descending) end = 'start';
	return { end, resumeToken: end === 'end' ? endToken : undefined };
}
