import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isoTimeMs } from '../../../shared/isoTime';
import { createLead, leadFieldValue, patchLead } from '../../../shared/leads';
import { isRecord } from '../../../shared/transport/record';
import { type LeadField, fieldName } from '../../../shared/schema/leadField';
import { httpCodeOf } from '../../../shared/transport/errors';
import { pagesOf } from '../../../shared/transport/paging';
import { canIdentifyLead, isEmptyValue } from '../../../shared/schema/fieldTypes';
import {
	invalidLeadError,
	missingRequiredFields,
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
	writableValues,
} from '../../helpers/leadValues';
import { creditFields, leadFieldsMapper, requestOptions, shownFor } from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';

/** Added to every output lead of Create or Update: what the node did with the item. */
export const UPSERT_ACTION_FIELD = '_action';

const properties: INodeProperties[] = [
	{
		displayName: 'Match Field Name or ID',
		name: 'matchField',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getMatchFields' },
		default: 'email',
		required: true,
		description:
			'The lead field that identifies an existing lead. If a lead has this value, it is updated; otherwise a new lead is created. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		hint: `The output has ${UPSERT_ACTION_FIELD}: "created" or "updated". E-mail addresses match in any letter case; if several leads share a value, the oldest is updated.`,
	},
	...creditFields,
	leadFieldsMapper('upsert'),
	requestOptions,
];

export const description = shownFor('lead', 'upsert', properties);

interface UpsertItem {
	key: string;
	values: IDataObject;
}

function matchFieldOf(this: IExecuteFunctions, schema: LeadField[]): LeadField {
	const fieldId = String(this.getNodeParameter('matchField', 0, 'email'));
	const field = schema.find((entry) => entry.fieldId === fieldId);
	if (!field || !canIdentifyLead(field)) {
		throw new NodeOperationError(this.getNode(), `Cannot match leads on "${fieldId}"`, {
			description: field
				? `${fieldName(field)} holds ${field.type} values, which cannot identify a lead. Choose another Match Field.`
				: "The portal's lead schema has no such field. Choose a Match Field from the list.",
		});
	}
	return field;
}

function matchKey(value: unknown, field: LeadField): string | undefined {
	if (isEmptyValue(value) || (typeof value === 'object' && value !== null)) return undefined;
	const text = String(value).trim();
	return field.type === 'email' ? text.toLowerCase() : text;
}

/** Lead ids by match value, listed once per run: the service's list cannot search. */
class LeadsByMatchValue {
	private readonly ids = new Map<string, { id: string; createdAt?: number }>();

	constructor(readonly field: LeadField) {}

	find(key: string): string | undefined {
		return this.ids.get(key)?.id;
	}

	/** The oldest lead wins (by createdAt, else the first listed), so reruns update the same one. */
	remember(key: string, leadId: string, createdAt?: number): void {
		const known = this.ids.get(key);
		const older =
			known?.createdAt !== undefined && createdAt !== undefined && createdAt < known.createdAt;
		if (!known || older) this.ids.set(key, { id: leadId, createdAt });
	}

	async load(context: IExecuteFunctions): Promise<void> {
		// pagesOf misses no lead even if some are deleted meanwhile; a missed one would be duplicated.
		const pages = pagesOf.call(context, { path: '/leads', what: 'list of leads', itemIndex: 0 });
		for await (const page of pages) {
			for (const lead of page) {
				if (!isRecord(lead) || lead.id === undefined || lead.id === null) continue;
				const key = matchKey(
					leadFieldValue(lead, this.field.fieldId, this.field.custom),
					this.field,
				);
				if (key !== undefined) this.remember(key, String(lead.id), isoTimeMs(lead.createdAt));
			}
		}
	}
}

function readUpsertItem(
	this: IExecuteFunctions,
	itemIndex: number,
	input: INodeExecutionData,
	schema: LeadField[],
	matchField: LeadField,
): UpsertItem {
	const values = readValidLeadValues.call(this, itemIndex, input, schema, 'upsert');
	const key = matchKey(values[matchField.fieldId], matchField);
	if (key === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`${fieldName(matchField)} has no value, so the lead cannot be matched`,
			{
				itemIndex,
				description: `Create or Update looks leads up by the Match Field. Give ${matchField.label} a value in Lead Fields or the input item, or choose another Match Field.`,
			},
		);
	}
	return { key, values };
}

/** An item not sent because an earlier create with its match value got no clear answer. */
function mayExistError(
	context: IExecuteFunctions,
	matchField: LeadField,
	key: string,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`Not created: an earlier item with the same ${matchField.label} may already have created this lead`,
		{
			itemIndex,
			description: `Creating the lead for an earlier item with ${fieldName(matchField)} "${key}" got no clear answer, so the lead may exist: this item was not sent, to avoid a duplicate. Check with Lead > Get Many, then run the workflow again: Create or Update will then find the lead and update it.`,
		},
	);
}

export const execute = defineOperation(async function (items, run) {
	const schema = withCreditFields(await run.leadSchema());
	const matchField = matchFieldOf.call(this, schema);
	const lookup = new LeadsByMatchValue(matchField);
	// Items with the same match value run in turn, so the second finds the lead the first created.
	const previousWithKey = new Map<string, Promise<void>>();
	// Creates that failed without a clear "no" (5xx, lost connection): the lead may exist anyway.
	const maybeCreated = new Set<string>();

	const createOrUpdate = async (
		itemIndex: number,
		{ key, values }: UpsertItem,
		request: Parameters<typeof createLead>[1],
	): Promise<IDataObject> => {
		const existingId = lookup.find(key);
		if (existingId !== undefined) {
			const body = splitStandardAndCustomFields(writableValues(values, schema, 'update'), schema);
			const lead = await patchLead.call(this, existingId, body, request);
			return { ...lead, [UPSERT_ACTION_FIELD]: 'updated' };
		}
		if (maybeCreated.has(key)) throw mayExistError(this, matchField, key, itemIndex);
		const createValues = writableValues(values, schema, 'create');
		const missing = missingRequiredFields(createValues, schema);
		if (missing.length > 0) throw invalidLeadError(this.getNode(), missing, itemIndex);
		const body = splitStandardAndCustomFields(createValues, schema);
		const lead = await createLead.call(this, body, request).catch((error: unknown) => {
			// A 4xx is a refusal: nothing was created. Anything else may have been applied.
			if (!httpCodeOf(error)?.startsWith('4')) maybeCreated.add(key);
			throw error;
		});
		if (lead.id !== undefined && lead.id !== null) lookup.remember(key, String(lead.id));
		return { ...lead, [UPSERT_ACTION_FIELD]: 'created' };
	};

	return {
		parallel: true,
		prepare: (itemIndex) =>
			readUpsertItem.call(this, itemIndex, items[itemIndex], schema, matchField),
		beforeRequests: async () => await lookup.load(this),
		run: async (itemIndex, item: UpsertItem, request) => {
			const previous = previousWithKey.get(item.key);
			let finished: () => void = () => {};
			previousWithKey.set(item.key, new Promise<void>((resolve) => (finished = resolve)));
			try {
				await previous;
				return await createOrUpdate(itemIndex, item, request);
			} finally {
				finished();
			}
		},
	};
});
