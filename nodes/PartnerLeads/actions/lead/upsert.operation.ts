import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { parallelRequestsOption, runItems, withItemIndex } from '../../helpers/itemRunner';
import {
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
} from '../../helpers/leadInput';
import { canMatchOn, LeadLookup, matchKey } from '../../helpers/leadLookup';
import { createLead, patchLead } from '../../helpers/leadRequests';
import type { LeadField } from '../../helpers/leadSchema';
import { fieldName } from '../../helpers/leadSchema';
import { prepareItems, preparedValue } from '../../helpers/prepareItems';
import {
	invalidLeadError,
	missingRequiredFields,
	writableValues,
} from '../../helpers/validateLead';
import { creditFields, leadFieldsMapper, requestOptions } from '../common.descriptions';
import type { OperationRun } from '../types';

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

export const description = updateDisplayOptions(
	{ show: { resource: ['lead'], operation: ['upsert'] } },
	properties,
);

interface UpsertItem {
	key: string;
	values: IDataObject;
}

function matchFieldOf(this: IExecuteFunctions, schema: LeadField[]): LeadField {
	const fieldId = String(this.getNodeParameter('matchField', 0, 'email'));
	const field = schema.find((entry) => entry.fieldId === fieldId);
	if (!field || !canMatchOn(field)) {
		throw new NodeOperationError(this.getNode(), `Cannot match leads on "${fieldId}"`, {
			description: field
				? `${fieldName(field)} holds ${field.type} values, which cannot identify a lead. Choose another Match Field.`
				: "The portal's lead schema has no such field. Choose a Match Field from the list.",
		});
	}
	return field;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: OperationRun,
): Promise<INodeExecutionData[]> {
	const schema = withCreditFields(await run.leadSchema());
	const matchField = matchFieldOf.call(this, schema);
	const prepared = prepareItems(this, items.length, (itemIndex): UpsertItem => {
		const values = readValidLeadValues.call(this, itemIndex, items[itemIndex], schema, 'upsert');
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
		return { key, values: values };
	});

	const lookup = new LeadLookup(matchField);
	if (prepared.some((entry) => entry.ok)) await lookup.load(this);

	// Items with the same match value run one after the other, so the second of two new
	// leads with the same e-mail finds the first one and updates it.
	const previousWithKey = new Map<string, Promise<void>>();
	// Match values whose create failed without a clear "no" (5xx, lost connection): the lead
	// may exist anyway, so a later item with the same value must not create it again.
	const maybeCreated = new Set<string>();

	return await runItems.call(
		this,
		items.length,
		parallelRequestsOption(this),
		async (itemIndex, pacing) => {
			const { key, values } = preparedValue(prepared[itemIndex]);
			const previous = previousWithKey.get(key);
			let finished: () => void = () => {};
			previousWithKey.set(key, new Promise<void>((resolve) => (finished = resolve)));
			try {
				await previous;
				const existingId = lookup.find(key);
				if (existingId !== undefined) {
					const body = splitStandardAndCustomFields(
						writableValues(values, schema, 'update'),
						schema,
					);
					const lead = await patchLead.call(this, existingId, body, itemIndex, pacing);
					return [
						{
							json: { ...lead, [UPSERT_ACTION_FIELD]: 'updated' },
							pairedItem: { item: itemIndex },
						},
					];
				}
				if (maybeCreated.has(key)) {
					throw new NodeOperationError(
						this.getNode(),
						`Not created: an earlier item with the same ${matchField.label} may already have created this lead`,
						{
							itemIndex,
							description: `Creating the lead for an earlier item with ${fieldName(matchField)} "${key}" got no clear answer, so the lead may exist: this item was not sent, to avoid a duplicate. Check with Lead > Get Many, then run the workflow again: Create or Update will then find the lead and update it.`,
						},
					);
				}
				const createValues = writableValues(values, schema, 'create');
				const missing = missingRequiredFields(createValues, schema);
				if (missing.length > 0) throw invalidLeadError(this.getNode(), missing, itemIndex);
				let lead: IDataObject;
				try {
					lead = await createLead.call(
						this,
						splitStandardAndCustomFields(createValues, schema),
						itemIndex,
						pacing,
					);
				} catch (error) {
					// A 4xx is a refusal: nothing was created. Anything else may have been applied.
					if (!String((error as { httpCode?: unknown }).httpCode ?? '').startsWith('4'))
						maybeCreated.add(key);
					throw withItemIndex(this, error, itemIndex);
				}
				if (lead.id !== undefined && lead.id !== null) lookup.remember(key, String(lead.id));
				return [
					{ json: { ...lead, [UPSERT_ACTION_FIELD]: 'created' }, pairedItem: { item: itemIndex } },
				];
			} finally {
				finished();
			}
		},
	);
}
