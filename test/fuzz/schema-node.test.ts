import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { readLeadSchema } from '../../nodes/shared/schema/leadSchema';
import { N8nHarness } from '../harness/harness';
import { mapper } from '../support/fixtures';
import { DEFAULT_LEAD_SCHEMA, startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';
import {
	FUZZ_SEED,
	itemArb,
	looksPolluted,
	prototypeFingerprint,
	runs,
	schemaEntryArb,
} from './arbitraries';

/**
 * The same properties end to end: the action node inside n8n-core's WorkflowExecute, its
 * schema served by the simulator in random shapes, random items mapped both ways. Whatever
 * comes in, the node ends with leads or with its own clear per-item errors, never a crash,
 * and a refused item names the field.
 */

/** What an exception from a bug looks like, as opposed to a message the node wrote. */
const CRASH =
	/Cannot read propert|is not a function|is not iterable|is not defined|Invalid time value|Maximum call stack|Unexpected token|Cannot convert|circular structure|\[object Object\]/i;

const baseline = prototypeFingerprint();

describe('fuzz: Lead > Create and Create or Update through n8n-core with random schemas and items', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 91 });
		harness = new N8nHarness(sim);
	});
	afterAll(async () => {
		await sim.close();
	});
	afterEach(() => {
		expect(prototypeFingerprint()).toBe(baseline);
		expect(looksPolluted()).toBe(false);
	});

	/** The portal's real schema with its picklists re-shaped in every form the service may use, plus a few random entries. */
	const plausibleEntriesArb: fc.Arbitrary<unknown[]> = fc
		.tuple(
			fc.constantFrom('picklistValues', 'options', 'values'),
			fc.boolean(),
			fc.array(schemaEntryArb, { maxLength: 3 }),
		)
		.map(([key, asStrings, extra]) => [
			...DEFAULT_LEAD_SCHEMA.map((entry) => {
				const { picklistValues, ...rest } = structuredClone(entry);
				if (!picklistValues) return rest;
				return {
					...rest,
					[key]: asStrings ? picklistValues.map((option) => option.value) : picklistValues,
				};
			}),
			...extra,
		]);

	/** A person with valid standard fields and random, mostly sensible, custom values. */
	const plausibleItemArb: fc.Arbitrary<Record<string, unknown>> = fc
		.record(
			{
				n: fc.nat(),
				industry: fc.constantFrom('saas', 'Fintech', 'RETAIL', 'healthcare', '', 'mining'),
				employeeCount: fc.oneof(
					fc.integer({ min: 0, max: 5000 }),
					fc.constantFrom('42', ' 7 ', '', 'many'),
				),
				isEnterprise: fc.constantFrom(true, 'yes', 'No', null, 'maybe'),
				interests: fc.constantFrom(
					['analytics'],
					'automation, security',
					'Integrations',
					[],
					['analytics', 'astrology'],
				),
				closeDate: fc.constantFrom('2025-01-31', '2025-06-01T10:00:00Z', '', '2025-02-30'),
				lastContactedAt: fc.constantFrom('2024-05-01T09:30:00', '2024-05-01', null, 'last week'),
				platform: fc.constantFrom('hubspot', 'Salesforce', 'other', undefined, 'myspace'),
				value: fc.oneof(
					fc.double({ min: 0, max: 1e6, noNaN: true }),
					fc.constantFrom('250', '', '1,000'),
				),
			},
			{ requiredKeys: ['n'] },
		)
		.map(({ n, ...rest }) => ({
			firstName: `Ada${n}`,
			lastName: 'Fuzz',
			email: `ada${n}.fuzz@example.com`,
			...rest,
		}));

	const plausibleCaseArb = fc.record({
		entries: plausibleEntriesArb,
		items: fc.array(plausibleItemArb, { minLength: 1, maxLength: 4 }),
		operation: fc.constantFrom('create', 'upsert'),
		mappingMode: fc.constantFrom('defineBelow', 'autoMapInputData'),
		continueOnFail: fc.boolean(),
	});

	const randomCaseArb = fc
		.array(schemaEntryArb, { minLength: 1, maxLength: 8 })
		.chain((entries) => {
			const ids = (readLeadSchema({ unifiedFields: entries }) ?? []).map((field) => field.fieldId);
			return fc.record({
				entries: fc.constant(entries),
				items: fc.array(itemArb([...ids, 'firstName', 'lastName', 'email']), {
					minLength: 1,
					maxLength: 4,
				}),
				operation: fc.constantFrom('create', 'upsert'),
				mappingMode: fc.constantFrom('defineBelow', 'autoMapInputData'),
				continueOnFail: fc.boolean(),
			});
		});

	const caseArb = fc.oneof(plausibleCaseArb, randomCaseArb);

	function parametersFor(
		operation: string,
		mappingMode: string,
		items: IDataObject[],
		matchField: string,
	): INodeParameters {
		// defineBelow: the first item's values typed into Lead Fields (as fixed values).
		const value = mappingMode === 'defineBelow' ? (items[0] ?? {}) : null;
		return {
			resource: 'lead',
			operation,
			matchField,
			partnerOrganizationId: sim.defaultPartnerOrganization.id,
			agentId: sim.defaultAgents[0].id,
			leadFields: mapper(value, mappingMode as 'defineBelow' | 'autoMapInputData'),
		} as unknown as INodeParameters;
	}

	/** Create or Update matches on email when the schema has it, else on its first field. */
	function matchFieldOf(entries: unknown[]): string {
		const ids = (readLeadSchema({ unifiedFields: entries }) ?? []).map((field) => field.fieldId);
		return ids.includes('email') || ids.length === 0 ? 'email' : ids[0];
	}

	it('never crashes: every item ends as a lead or a clear error, and refusals name the field', async () => {
		await fc.assert(
			fc.asyncProperty(
				caseArb,
				async ({ entries, items, operation, mappingMode, continueOnFail }) => {
					sim.control.setRawSchemaResponse({
						status: 200,
						data: { unifiedFields: entries },
						context: { requestId: 'fuzz' },
					});
					const knownNames = new Set<string>([
						...items.flatMap((item) => Object.keys(item)),
						...(readLeadSchema({ unifiedFields: entries }) ?? []).map((field) => field.fieldId),
					]);
					const run = await harness.runNode({
						parameters: parametersFor(
							operation,
							mappingMode,
							items as IDataObject[],
							matchFieldOf(entries),
						),
						items: items as IDataObject[],
						continueOnFail,
					});
					const errors: string[] = [];
					if (run.error) {
						expect(['NodeOperationError', 'NodeApiError']).toContain(run.error.name);
						errors.push(String(run.error.message));
					} else {
						expect(run.items).toHaveLength(items.length);
						for (const item of run.items) {
							if (typeof item.json.error === 'string') errors.push(item.json.error);
							else expect(typeof item.json.id).toBe('string');
						}
					}
					for (const message of errors) {
						expect(message).not.toMatch(CRASH);
						if (message.startsWith('Invalid lead field')) {
							// Each problem names its field (checked one by one in schema-mapping.test.ts); here
							// labels may hold "; " too, so only the message as a whole is checked.
							expect(
								[...knownNames].some((name) => name.trim() !== '' && message.includes(name)),
							).toBe(true);
						}
					}
				},
			),
			{ seed: FUZZ_SEED, numRuns: runs(60) },
		);
	});
});
