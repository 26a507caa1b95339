import { readListedLead } from '../../../nodes/shared/changes/listedLead';

/** A listed entry read once: its id as text, its version and creation in service time. */

const CREATED = '2025-03-01T10:00:00Z';
const UPDATED = '2025-03-02T10:00:00.250Z';

describe('readListedLead', () => {
	it.each([
		[
			'updated and created',
			{ id: 'a', createdAt: CREATED, updatedAt: UPDATED },
			'a',
			UPDATED,
			CREATED,
		],
		['only created: that is its version', { id: 'a', createdAt: CREATED }, 'a', CREATED, CREATED],
		['a number id, as text', { id: 42, updatedAt: UPDATED }, '42', UPDATED, undefined],
		[
			'times that are no ISO 8601',
			{ id: 'a', createdAt: 'March 1', updatedAt: 1 },
			'a',
			undefined,
			undefined,
		],
	])('%s', (_name, entry, id, version, created) => {
		const listed = readListedLead(entry);
		expect(listed).toEqual({
			id,
			version: version === undefined ? undefined : Date.parse(version),
			createdMs: created === undefined ? undefined : Date.parse(created),
			lead: entry,
		});
	});

	it.each([
		['no id', { updatedAt: UPDATED }],
		['an empty id', { id: '', updatedAt: UPDATED }],
		['an id that is no text or number', { id: { nested: 1 }, updatedAt: UPDATED }],
		['no record', 'a'],
		['null', null],
	])('leaves out an entry with %s', (_name, entry) => {
		expect(readListedLead(entry)).toBeUndefined();
	});
});
