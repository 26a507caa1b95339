import type { INodePropertyOptions, ResourceMapperFields } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import {
	editorContext,
	jsonOf,
	pairedIndexes,
	routeCount,
	schemaAsServed,
} from '../../support/fixtures';

describe('PartnerLeads: Lead Schema > Get and the editor methods', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 14 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	async function mapperFields(
		operation: 'create' | 'update' | 'upsert',
	): Promise<ResourceMapperFields> {
		const method = {
			create: 'getLeadFields',
			update: 'getLeadFieldsForUpdate',
			upsert: 'getLeadFieldsForUpsert',
		}[operation];
		const { context, methods } = editorContext(
			harness,
			{ resource: 'lead', operation },
			'parameters.leadFields',
		);
		return await methods.resourceMapping![method].call(context);
	}

	describe('Lead Schema > Get', () => {
		it('one item per field, with the custom flag and picklist values, for each input item', async () => {
			const run = await harness.runNode({
				parameters: { resource: 'leadSchema', operation: 'get' },
				items: [{}, {}],
			});
			expect(run.error).toBeUndefined();
			const fieldCount = sim.control.getSchema().length;
			expect(run.items).toHaveLength(2 * fieldCount);
			expect(pairedIndexes(run)).toEqual([
				...Array(fieldCount).fill(0),
				...Array(fieldCount).fill(1),
			]);
			const byId = new Map(
				jsonOf(run)
					.slice(0, fieldCount)
					.map((field) => [field.fieldId, field]),
			);
			expect(byId.get('firstName')).toEqual({
				fieldId: 'firstName',
				label: 'First name',
				type: 'string',
				required: true,
				creatable: true,
				updateable: true,
				isCustom: false,
			});
			// a service that lists options as bare strings gives no labels: the value is the label
			const saasLabel = sim.personality.picklistShape === 'options-strings' ? 'saas' : 'SaaS';
			expect(byId.get('industry')).toMatchObject({
				type: 'picklist',
				isCustom: true,
				options: expect.arrayContaining([{ value: 'saas', label: saasLabel }]),
			});
			expect(routeCount(sim, 'GET /schema/lead')).toBe(1);
		});

		it('Raw Response: the schema as the service sent it', async () => {
			const run = await harness.runNode({
				parameters: { resource: 'leadSchema', operation: 'get', output: 'raw' },
			});
			expect(run.items).toHaveLength(1);
			expect(run.items[0].json).toEqual(await schemaAsServed(sim));
		});

		it('reads the other shapes: no envelope, `options` and `values`, strings or {value,label}, unknown types', async () => {
			sim.control.setRawSchemaResponse({
				unifiedFields: [
					{
						fieldId: 'platform',
						label: 'Platform',
						type: 'picklist',
						options: ['hubspot', 'other'],
					},
					{
						fieldId: 'tier',
						label: 'Tier',
						type: 'picklist',
						values: [{ value: 'gold', label: 'Gold' }, { value: 'silver' }],
					},
					{ fieldId: 'geo', label: 'Location', type: 'geopoint', creatable: false },
					{
						fieldId: 'companyName',
						label: 'Company',
						type: 'string',
						isCustom: true,
						required: 'true',
					},
					{ label: 'no id: skipped' },
				],
			});
			const run = await harness.runNode({
				parameters: { resource: 'leadSchema', operation: 'get' },
			});
			expect(jsonOf(run)).toEqual([
				{
					fieldId: 'platform',
					label: 'Platform',
					type: 'picklist',
					required: false,
					creatable: true,
					updateable: true,
					isCustom: false,
					options: [
						{ value: 'hubspot', label: 'hubspot' },
						{ value: 'other', label: 'other' },
					],
				},
				{
					fieldId: 'tier',
					label: 'Tier',
					type: 'picklist',
					required: false,
					creatable: true,
					updateable: true,
					isCustom: true,
					options: [
						{ value: 'gold', label: 'Gold' },
						{ value: 'silver', label: 'silver' },
					],
				},
				{
					fieldId: 'geo',
					label: 'Location',
					type: 'geopoint',
					required: false,
					creatable: false,
					updateable: true,
					isCustom: true,
				},
				{
					fieldId: 'companyName',
					label: 'Company',
					type: 'string',
					required: true,
					creatable: true,
					updateable: true,
					isCustom: true,
				},
			]);
			const fields = await mapperFields('update');
			expect(fields.fields.find((field) => field.id === 'geo')?.type).toBe('string');
			expect(fields.fields.find((field) => field.id === 'tier')?.options).toEqual([
				{ name: 'Gold', value: 'gold' },
				{ name: 'silver', value: 'silver' },
			]);
		});

		it('a failing schema request with Continue On Fail: one error item per input item', async () => {
			sim.control.setFaults('GET /schema/lead', { rate5xx: 1 });
			const run = await harness.runNode({
				parameters: { resource: 'leadSchema', operation: 'get' },
				items: [{}, {}],
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(jsonOf(run).map((item) => item.error)).toEqual([
				expect.stringMatching(/could not handle the request \(HTTP 5\d\d\)/),
				expect.stringMatching(/HTTP 5\d\d/),
			]);
			expect(pairedIndexes(run)).toEqual([0, 1]);
		});
	});

	describe('resource mapper fields (resourceMapping)', () => {
		it('Create: creatable fields with labels, required flags, n8n types and picklist options; partner and agent are parameters of their own', async () => {
			const { fields } = await mapperFields('create');
			const ids = fields.map((field) => field.id);
			expect(ids).not.toContain('partnerOrganizationId');
			expect(ids).not.toContain('agentId');
			expect(ids).not.toContain('internalScore'); // not creatable
			const byId = new Map(fields.map((field) => [field.id, field]));
			expect(byId.get('firstName')).toMatchObject({
				displayName: 'First name',
				required: true,
				type: 'string',
				display: true,
			});
			expect(byId.get('phone')).toMatchObject({ required: false, type: 'string' });
			expect(byId.get('value')?.type).toBe('number');
			expect(byId.get('isEnterprise')?.type).toBe('boolean');
			expect(byId.get('closeDate')?.type).toBe('dateTime');
			expect(byId.get('lastContactedAt')?.type).toBe('dateTime');
			expect(byId.get('interests')?.type).toBe('array');
			const labelled = sim.personality.picklistShape !== 'options-strings'; // bare strings carry no labels
			expect(byId.get('platform')).toMatchObject({
				type: 'options',
				options: [
					{ name: labelled ? 'HubSpot' : 'hubspot', value: 'hubspot' },
					{ name: labelled ? 'Salesforce' : 'salesforce', value: 'salesforce' },
					{ name: labelled ? 'Pipedrive' : 'pipedrive', value: 'pipedrive' },
					{ name: labelled ? 'Other' : 'other', value: 'other' },
				],
			});
		});

		it('Update: updateable fields, none required, partner and agent included', async () => {
			const { fields } = await mapperFields('update');
			expect(fields.every((field) => !field.required)).toBe(true);
			expect(fields.map((field) => field.id)).toEqual(
				expect.arrayContaining(['partnerOrganizationId', 'agentId', 'email']),
			);
			expect(fields.map((field) => field.id)).not.toContain('internalScore');
		});

		it('Create or Update: required as on create', async () => {
			const { fields } = await mapperFields('upsert');
			expect(fields.filter((field) => field.required).map((field) => field.id)).toEqual([
				'firstName',
				'lastName',
				'email',
			]);
		});

		it('an empty schema gives a notice instead of an empty form', async () => {
			sim.control.setRawSchemaResponse({ data: { unifiedFields: [] } });
			expect(await mapperFields('create')).toEqual({
				fields: [],
				emptyFieldsNotice: "The portal's lead schema has no field that can be set on create",
			});
		});

		it('Lead Fields asks the service each time; the Match Field dropdown reuses its copy for a minute; every run fetches again', async () => {
			await mapperFields('create');
			const { context, methods } = editorContext(
				harness,
				{ resource: 'lead', operation: 'upsert' },
				'parameters.matchField',
			);
			await methods.loadOptions!.getMatchFields.call(context);
			await methods.loadOptions!.getMatchFields.call(context);
			expect(routeCount(sim, 'GET /schema/lead')).toBe(1);
			await mapperFields('update');
			expect(routeCount(sim, 'GET /schema/lead')).toBe(2);
			await harness.runNode({ parameters: { resource: 'leadSchema', operation: 'get' } });
			await harness.runNode({ parameters: { resource: 'leadSchema', operation: 'get' } });
			expect(routeCount(sim, 'GET /schema/lead')).toBe(4);
		});

		it('Refresh Field List right after the portal changed its schema shows the change', async () => {
			const before = (await mapperFields('create')).fields.map((field) => field.id);
			expect(before).not.toContain('region');
			const schema = structuredClone(sim.control.getSchema());
			schema.push({
				fieldId: 'region',
				label: 'Sales region',
				type: 'string',
				required: true,
				creatable: true,
				updateable: true,
			});
			sim.control.setSchema(schema);
			const after = (await mapperFields('create')).fields.find((field) => field.id === 'region');
			expect(after).toMatchObject({ displayName: 'Sales region', required: true });
		});

		it('a credential problem reaches the editor: what is wrong in the message, what to do in the description', async () => {
			const broken = new N8nHarness(sim, { companyId: 'short' });
			const { context, methods } = editorContext(
				broken,
				{ resource: 'lead', operation: 'create' },
				'parameters.leadFields',
			);
			const thrown = await methods.resourceMapping!.getLeadFields.call(context).then(
				() => undefined,
				(error: unknown) => error as { message?: string; description?: string },
			);
			expect(thrown?.message).toBe("'Company ID' has 5 characters instead of 24.");
			expect(thrown?.description).toMatch(
				/^Copy the 24-character 'Company ID' that the provider gave you with the API addresses\. Open the Partner Referral Service API credential/,
			);
		});
	});

	it('Match Field options (loadOptions getMatchFields): fields that can identify a lead', async () => {
		const { context, methods } = editorContext(
			harness,
			{ resource: 'lead', operation: 'upsert' },
			'parameters.matchField',
		);
		const options = (await methods.loadOptions!.getMatchFields.call(
			context,
		)) as INodePropertyOptions[];
		const values = options.map((option) => option.value);
		expect(values).toEqual(
			expect.arrayContaining([
				'email',
				'firstName',
				'partnerOrganizationId',
				'industry',
				'employeeCount',
			]),
		);
		expect(values).not.toContain('isEnterprise');
		expect(values).not.toContain('interests');
		expect(values).not.toContain('notes');
		expect(options.find((option) => option.value === 'email')).toEqual({
			name: 'Email',
			value: 'email',
			description: 'Standard field email (email)',
		});
	});
});
