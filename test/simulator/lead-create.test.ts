import { DEFAULT_LEAD_SCHEMA, STANDARD_LEAD_FIELD_IDS, startSimulator } from './index';
import {
	apiClient,
	detail,
	detailFields,
	expectError,
	send,
	tokenFor,
	validLead,
} from './test-helpers';
import type { SchemaField, Simulator } from './types';

/** Spec section 2 (lead fields, lead schema) and section 4 (get schema, create lead and its rules). */

let sim: Simulator;
let client: ReturnType<typeof apiClient>;
let partnerClient: ReturnType<typeof apiClient>; // not self-serve

beforeAll(async () => {
	sim = await startSimulator({ personality: 'default', seed: 3 });
});
afterAll(() => sim.close());
beforeEach(async () => {
	sim.control.reset();
	client = apiClient(sim, await tokenFor(sim));
	partnerClient = apiClient(sim, await tokenFor(sim, sim.control.createKey({ selfServe: false })));
});

describe('schema', () => {
	it('serves the default schema in the envelope', async () => {
		const answer = await client.api('GET', '/schema/lead');
		expect(answer.status).toBe(200);
		expect(answer.body.data.unifiedFields).toEqual(DEFAULT_LEAD_SCHEMA);
		for (const entry of answer.body.data.unifiedFields as SchemaField[]) {
			expect(entry).toEqual(
				expect.objectContaining({
					fieldId: expect.any(String),
					label: expect.any(String),
					type: expect.any(String),
					required: expect.any(Boolean),
					creatable: expect.any(Boolean),
					updateable: expect.any(Boolean),
				}),
			);
			if (entry.type === 'picklist' || entry.type === 'multipicklist') {
				expect(entry.picklistValues?.length).toBeGreaterThan(0);
			}
		}
		const ids = (answer.body.data.unifiedFields as SchemaField[]).map((f) => f.fieldId);
		expect(ids).toEqual(expect.arrayContaining([...STANDARD_LEAD_FIELD_IDS]));
	});

	it('serves a schema set by a test, and validates against it', async () => {
		sim.control.setSchema([
			{
				fieldId: 'firstName',
				label: 'First',
				type: 'string',
				required: false,
				creatable: true,
				updateable: true,
			},
			{
				fieldId: 'region',
				label: 'Region',
				type: 'string',
				required: true,
				creatable: true,
				updateable: true,
			},
		]);
		const answer = await client.api('GET', '/schema/lead');
		expect(answer.body.data.unifiedFields.map((f: SchemaField) => f.fieldId)).toEqual([
			'firstName',
			'region',
		]);
		const refused = await partnerClient.api('POST', '/leads', { firstName: 'A' });
		expectError(refused, 400, 'validation_failed', /customFields\.region \(Region\) is required/);
		const created = await partnerClient.api('POST', '/leads', { customFields: { region: 'EMEA' } });
		expect(created.status).toBe(201);
	});

	it('serves a raw body verbatim, and restores the normal one', async () => {
		const raw = { unifiedFields: [{ fieldId: 'platform', type: 'picklist', options: ['a', 'b'] }] };
		sim.control.setRawSchemaResponse(raw);
		expect((await client.api('GET', '/schema/lead')).body).toEqual(raw);
		sim.control.setRawSchemaResponse(null);
		expect((await client.api('GET', '/schema/lead')).body.data.unifiedFields).toEqual(
			DEFAULT_LEAD_SCHEMA,
		);
	});
});

describe('create lead', () => {
	it('creates a lead: 201 with id, companyId, status, timestamps, customFields', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, {
				platform: 'hubspot',
				value: 1200.5,
				customFields: { industry: 'saas', interests: ['analytics'] },
			}),
		);
		expect(answer.status).toBe(201);
		const lead = answer.body.data;
		expect(lead).toEqual({
			id: expect.stringMatching(/^[0-9a-f]{24}$/),
			companyId: sim.companyId,
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
			partnerOrganizationId: sim.defaultPartnerOrganization.id,
			agentId: sim.defaultAgents[0].id,
			platform: 'hubspot',
			value: 1200.5,
			status: 'active',
			createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
			updatedAt: lead.createdAt,
			customFields: { industry: 'saas', interests: ['analytics'] },
		});
		expect(sim.control.getLead(lead.id)).toEqual(lead);
	});

	it('requires a JSON content type', async () => {
		const answer = await client.api('POST', '/leads', undefined, { 'content-type': 'text/plain' });
		expectError(answer, 415, 'unsupported_content_type', /application\/json/);
	});

	it('refuses invalid JSON and bodies over 1 MB', async () => {
		const headers = {
			'content-type': 'application/json',
			authorization: `Bearer ${await tokenFor(sim)}`,
		};
		const url = `${sim.url}/1.0/api/company/${sim.companyId}/leads`;
		expectError(
			await send(url, { method: 'POST', rawBody: '{"firstName":', headers }),
			400,
			'invalid_json',
			/not valid JSON/,
		);
		const huge = JSON.stringify(validLead(sim, { notes: 'x'.repeat(1_100_000) }));
		expectError(
			await send(url, { method: 'POST', rawBody: huge, headers }),
			413,
			'payload_too_large',
			/1 MB/,
		);
	});

	it('refuses a body that is not a JSON object', async () => {
		expectError(await client.api('POST', '/leads', ['a']), 400, 'invalid_body', /JSON object/);
	});

	it('names every missing required field (rule 1)', async () => {
		const answer = await partnerClient.api('POST', '/leads', { lastName: 'L' });
		expectError(answer, 400, 'validation_failed', /firstName \(First name\) is required/);
		expect(detailFields(answer)).toEqual(['firstName', 'email']);
		expect(detail(answer, 'email')).toMatch(/required/);
	});

	it('treats an empty string as missing for a required field', async () => {
		const answer = await partnerClient.api('POST', '/leads', {
			firstName: ' ',
			lastName: 'L',
			email: 'a@b.co',
		});
		expectError(answer, 400, 'validation_failed', /firstName .*is required/);
	});

	it('requires a required custom field under customFields', async () => {
		const schema = structuredClone(DEFAULT_LEAD_SCHEMA).map((f) =>
			f.fieldId === 'industry' ? { ...f, required: true } : f,
		);
		sim.control.setSchema(schema);
		const answer = await partnerClient.api('POST', '/leads', validLead(sim));
		expectError(
			answer,
			400,
			'validation_failed',
			/customFields\.industry \(Industry\) is required/,
		);
		expect(detailFields(answer)).toEqual(['industry']);
	});

	it('requires partnerOrganizationId and agentId with a self-serve key (rule 2)', async () => {
		const answer = await client.api('POST', '/leads', {
			firstName: 'A',
			lastName: 'B',
			email: 'a@b.co',
		});
		expectError(answer, 400, 'validation_failed', /self-serve/);
		expect(detailFields(answer)).toEqual(['partnerOrganizationId', 'agentId']);
		expect(
			(
				await partnerClient.api('POST', '/leads', {
					firstName: 'A',
					lastName: 'B',
					email: 'a@b.co',
				})
			).status,
		).toBe(201);
	});

	it('refuses an agent of another partner organization', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { agentId: sim.otherAgent.id }),
		);
		expectError(answer, 400, 'validation_failed');
		expect(detailFields(answer)).toEqual(['agentId']);
		expect(detail(answer, 'agentId')).toBe(
			`Agent "${sim.otherAgent.id}" does not belong to partner organization "${sim.defaultPartnerOrganization.id}"`,
		);
	});

	it('refuses an unknown partner organization and an unknown agent', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { partnerOrganizationId: 'nope', agentId: 'nobody' }),
		);
		expectError(answer, 400, 'validation_failed');
		expect(detail(answer, 'partnerOrganizationId')).toMatch(
			/Partner organization "nope" does not exist/,
		);
		expect(detail(answer, 'agentId')).toMatch(/Agent "nobody" does not exist/);
	});

	it('accepts an agent added to an organization by the control API', async () => {
		const org = sim.control.addPartnerOrganization({ name: 'New' });
		const agent = sim.control.addAgent(org.id);
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { partnerOrganizationId: org.id, agentId: agent.id }),
		);
		expect(answer.status).toBe(201);
	});

	it('refuses a picklist value outside the schema and lists the allowed values (rule 3)', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { platform: 'zoho', customFields: { industry: 'mining' } }),
		);
		expectError(answer, 400, 'validation_failed');
		expect(detail(answer, 'platform')).toMatch(
			/must be one of: hubspot, salesforce, pipedrive, other/,
		);
		expect(detail(answer, 'industry')).toMatch(/must be one of: saas, fintech, healthcare, retail/);
	});

	it('checks multipicklist values', async () => {
		const bad = await client.api(
			'POST',
			'/leads',
			validLead(sim, { customFields: { interests: ['analytics', 'golf'] } }),
		);
		expect(detail(bad, 'interests')).toMatch(/array of values of: analytics, automation/);
		const notArray = await client.api(
			'POST',
			'/leads',
			validLead(sim, { customFields: { interests: 'analytics' } }),
		);
		expectError(notArray, 400, 'validation_failed', /interests/);
	});

	it.each([
		['value', 'abc', /value \(Deal value\) must be a number/],
		['email', 'not-an-email', /valid e-mail/],
		['websiteUrl', 'example', /absolute http\(s\) URL/],
		['closeDate', '2024-02-30', /ISO 8601 date/],
		['firstName', 42, /must be a string/],
	])('checks the type of standard field %s', async (field, value, message) => {
		const answer = await client.api('POST', '/leads', validLead(sim, { [field]: value }));
		expectError(answer, 400, 'validation_failed', message);
		expect(detailFields(answer)).toEqual([field]);
	});

	it.each([
		['employeeCount', '12', /must be a number/],
		['isEnterprise', 'yes', /must be a boolean/],
		['lastContactedAt', '2024-05-01', /date-time with time zone/],
		['referralNotes', { a: 1 }, /must be a string/],
	])('checks the type of custom field %s', async (field, value, message) => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { customFields: { [field]: value } }),
		);
		expectError(answer, 400, 'validation_failed', message);
		expect(detailFields(answer)).toEqual([field]);
	});

	it('accepts well-typed values of every type', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, {
				phone: '+1 555 0100',
				websiteUrl: 'https://ada.example.com',
				closeDate: '2025-12-31',
				notes: 'multi\nline',
				customFields: {
					employeeCount: 12,
					isEnterprise: false,
					lastContactedAt: '2024-05-01T09:30:00.000Z',
					referralNotes: 'x',
				},
			}),
		);
		expect(answer.status).toBe(201);
	});

	it('says custom values go under customFields for an unknown top-level field (rule 4)', async () => {
		const unknown = await client.api('POST', '/leads', validLead(sim, { favouriteColour: 'blue' }));
		expectError(unknown, 400, 'validation_failed', /custom field values go under customFields/);
		const customAtTop = await client.api('POST', '/leads', validLead(sim, { industry: 'saas' }));
		expectError(
			customAtTop,
			400,
			'validation_failed',
			/send it under customFields \(customFields\.industry\)/,
		);
	});

	it('refuses unknown customFields keys and standard fields under customFields', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { customFields: { shoeSize: 44, email: 'x@y.z' } }),
		);
		expectError(answer, 400, 'validation_failed');
		expect(detail(answer, 'shoeSize')).toMatch(/not in the lead schema/);
		expect(detail(answer, 'email')).toMatch(/standard field: send it at the top level/);
	});

	it('refuses non-creatable and service-set fields', async () => {
		const answer = await client.api(
			'POST',
			'/leads',
			validLead(sim, { status: 'won', customFields: { internalScore: 5 } }),
		);
		expectError(answer, 400, 'validation_failed');
		expect(detail(answer, 'internalScore')).toMatch(/cannot be set on create/);
		expect(detail(answer, 'status')).toMatch(/set by the service/);
	});
});
