import type { INodeProperties } from 'n8n-workflow';

import {
	figure,
	PACKED_LEAD_IDS,
	WATCHED_BYTES_PER_LEAD,
	WATCHED_VALUES_MAX_MB,
} from '../../nodes/shared/figures';
import { PACKED_LISTING_UP_TO_BYTES } from '../../nodes/shared/changes/leadIds';
import { MAX_WATCHED_BYTES } from '../../nodes/shared/changes/watchedValues';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { sweepMinutes } from '../../nodes/PartnerLeadsPollingTrigger/sweepPeriod';
import { at, readDoc, USER_DOCS } from './markdown';
import { nodeParameters } from './node-parameters';

/**
 * A figure the editor states and the documents repeat comes from one constant
 * (nodes/shared/figures.ts): the nodes build their texts from it, and every place a page or the
 * editor gives the figure must give that value. The constants follow from the code's bounds (and
 * the watched-values test measures the bytes a lead).
 */

const FIGURES: Array<{ what: string; value: number; patterns: RegExp[] }> = [
	{
		what: 'lead IDs kept packed, 24-character IDs',
		value: PACKED_LEAD_IDS.hex24,
		patterns: [/(?:about )?([\d,]+) leads with 24-character IDs/g],
	},
	{
		what: 'lead IDs kept packed, 36-character IDs',
		value: PACKED_LEAD_IDS.uuid,
		patterns: [/(?:about )?([\d,]+) (?:leads )?with (?:UUIDs|36-character IDs)/g],
	},
	{
		what: 'bytes a lead, one field watched',
		value: WATCHED_BYTES_PER_LEAD.oneField,
		patterns: [
			/([\d,]+) bytes a lead for one field/g,
			/\| 1 \(status\) \| ([\d,]+) \|/g,
			/([\d,]+) bytes for the status/g,
		],
	},
	{
		what: 'bytes a lead, five fields watched',
		value: WATCHED_BYTES_PER_LEAD.fiveFields,
		patterns: [
			/for one field, ([\d,]+) for five/g,
			/\| 5 \([^)]*\) \| ([\d,]+) \|/g,
			/([\d,]+) for five fields/g,
		],
	},
	{
		what: 'minutes the Polling Trigger takes to read 10,000 leads through',
		value: sweepMinutes(10_000),
		patterns: [/([\d,]+) minutes at 10,000 leads/g],
	},
	{
		what: 'minutes the Polling Trigger takes to read 50,000 leads through',
		value: sweepMinutes(50_000),
		patterns: [/(?<=minutes at 10,000 leads, )([\d,]+)(?= at 50,000)/g],
	},
	{
		what: 'hours the Polling Trigger takes to read 500,000 leads through',
		value: Math.round(sweepMinutes(500_000) / 60),
		patterns: [/([\d,]+) hours at 500,000/g],
	},
];

/** The texts the editor shows for both triggers: parameter names, descriptions, hints, notices. */
function editorTexts(): string[] {
	const texts = (property: INodeProperties) =>
		[property.displayName, property.description, property.hint].filter(
			(text): text is string => typeof text === 'string',
		);
	return [new PartnerLeadsTrigger().description, new PartnerLeadsPollingTrigger().description]
		.flatMap(nodeParameters)
		.flatMap(({ property }) => texts(property));
}

const PAGES = [...USER_DOCS, readDoc('CHANGELOG.md')];

function givenIn(text: string, patterns: RegExp[]): string[] {
	return patterns.flatMap((pattern) =>
		[...text.matchAll(pattern)].map((match) => match[0].replace(/\s+/g, ' ')),
	);
}

describe('figures the editor and the documents both give come from one constant', () => {
	it('the constants follow from the bounds in the code', () => {
		// a 24-character hex ID packs to 12 bytes, a UUID to 16, both as base64 (4 characters per 3 bytes)
		// (one bound for both triggers)
		expect(Math.floor((PACKED_LISTING_UP_TO_BYTES * 3) / 4 / 12)).toBe(PACKED_LEAD_IDS.hex24);
		expect(Math.floor((PACKED_LISTING_UP_TO_BYTES * 3) / 4 / 16)).toBe(PACKED_LEAD_IDS.uuid);
		expect(MAX_WATCHED_BYTES).toBe(WATCHED_VALUES_MAX_MB * 1_000_000);
	});

	it.each(FIGURES.map((entry) => [entry.what, entry] as const))('%s', (_what, entry) => {
		const expected = figure(entry.value);
		const editor = editorTexts().flatMap((text) => givenIn(text, entry.patterns));
		const pages = PAGES.flatMap((doc) =>
			doc.lines.flatMap((line, index) =>
				givenIn(line, entry.patterns).map((given) => ({ where: at(doc, index + 1), given })),
			),
		);
		expect(editor.length).toBeGreaterThan(0);
		expect(pages.length).toBeGreaterThan(0);
		const wrong = [...editor.map((given) => ({ where: 'the editor', given })), ...pages].filter(
			({ given }) => {
				const numbers = entry.patterns
					.flatMap((pattern) => [...given.matchAll(new RegExp(pattern.source, 'g'))])
					.map((match) => match[1]);
				return /^about /.test(given) || numbers.some((number) => number !== expected);
			},
		);
		expect(wrong.map(({ where, given }) => `${where}: "${given}", not ${expected}`)).toEqual([]);
	});
});

describe('the editor says what a user sees, not how it is built', () => {
	it.each(['static data', 'fingerprint', 'UUID'])('no "%s" in the triggers\' texts', (word) => {
		expect(editorTexts().filter((text) => text.toLowerCase().includes(word.toLowerCase()))).toEqual(
			[],
		);
	});
});
