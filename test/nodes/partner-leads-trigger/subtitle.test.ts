import { TRIGGER_NODE_TYPE } from '../../harness/harness';
import { subtitleOf } from '../../harness/subtitle';

describe('PartnerLeadsTrigger: the subtitle on the canvas', () => {
	const subtitleFor = (events: string[]) => subtitleOf(TRIGGER_NODE_TYPE, { events });

	it('names the chosen events as the Events option shows them, not by their topic values', () => {
		expect(subtitleFor(['lead/create'])).toBe('Lead Created');
		expect(subtitleFor(['lead/create', 'lead/update', 'lead/delete'])).toBe(
			'Lead Created, Lead Updated, Lead Deleted',
		);
		expect(subtitleFor([])).toBe('');
	});
});
