import { validationError, type ErrorDetail } from './errors';
import { fieldName, isBlank, typeProblem, type FieldRule } from './field-types';
import {
	READ_ONLY_LEAD_FIELDS,
	STANDARD_FIELD_TYPES,
	STANDARD_LEAD_FIELD_IDS,
	allowedValues,
	isCustomField,
} from './schema';
import type { Agent, Lead, PartnerOrganization, SchemaField } from './types';

/**
 * Lead create/update rules (spec section 4 "Create rules", section 2 field types).
 * Every problem is collected, so one 400 tells the user everything that is wrong.
 */

export interface WriteContext {
	schema: SchemaField[];
	selfServe: boolean;
	organizations: ReadonlyMap<string, PartnerOrganization>;
	agents: ReadonlyMap<string, Agent>;
}

/** What a valid request changes. `unset` lists fields cleared with null (PATCH only). */
export interface LeadWrite {
	set: Record<string, unknown>;
	unset: string[];
	customSet: Record<string, unknown>;
	customUnset: string[];
}

// The schema array is replaced (never mutated) by setSchema, so its identity is a cache key.
const rulesCache = new WeakMap<SchemaField[], Map<string, FieldRule>>();

function rulesFor(schema: SchemaField[]): Map<string, FieldRule> {
	const cached = rulesCache.get(schema);
	if (cached) return cached;
	const rules = new Map<string, FieldRule>();
	// Standard fields exist on every lead even when a test schema leaves them out.
	for (const fieldId of STANDARD_LEAD_FIELD_IDS) {
		rules.set(fieldId, {
			fieldId,
			label: fieldId,
			type: STANDARD_FIELD_TYPES[fieldId],
			required: false,
			creatable: true,
			updateable: true,
			custom: false,
		});
	}
	for (const entry of schema) {
		rules.set(entry.fieldId, {
			fieldId: entry.fieldId,
			label: entry.label ?? entry.fieldId,
			type: String(entry.type),
			required: entry.required === true,
			creatable: entry.creatable !== false,
			updateable: entry.updateable !== false,
			custom: isCustomField(entry),
			allowed: allowedValues(entry),
		});
	}
	rulesCache.set(schema, rules);
	return rules;
}

function unknownFieldProblem(key: string): ErrorDetail {
	return {
		field: key,
		message:
			`Unknown field "${key}": custom field values go under customFields keyed by fieldId; ` +
			`standard fields are ${STANDARD_LEAD_FIELD_IDS.join(', ')}`,
	};
}

type Mode = 'create' | 'update';

function emptyWrite(): LeadWrite {
	return { set: {}, unset: [], customSet: {}, customUnset: [] };
}

/** Checks one field value (shared by top level and customFields). Records into `write` or `problems`. */
function takeValue(
	rule: FieldRule,
	value: unknown,
	mode: Mode,
	write: LeadWrite,
	problems: ErrorDetail[],
): void {
	const target = rule.custom ? write.customSet : write.set;
	if (mode === 'create' && !rule.creatable) {
		problems.push({
			field: rule.fieldId,
			message: `${fieldName(rule)} cannot be set on create (creatable is false in the lead schema)`,
		});
		return;
	}
	if (mode === 'update' && !rule.updateable) {
		problems.push({
			field: rule.fieldId,
			message: `${fieldName(rule)} cannot be changed (updateable is false in the lead schema)`,
		});
		return;
	}
	if (value === null) {
		if (mode === 'create') return; // null on create = not given
		if (rule.required) {
			problems.push({
				field: rule.fieldId,
				message: `${fieldName(rule)} is required and cannot be cleared`,
			});
		} else (rule.custom ? write.customUnset : write.unset).push(rule.fieldId);
		return;
	}
	if (mode === 'update' && rule.required && isBlank(value)) {
		problems.push({
			field: rule.fieldId,
			message: `${fieldName(rule)} is required and cannot be empty`,
		});
		return;
	}
	const problem = typeProblem(rule, value);
	if (problem) problems.push({ field: rule.fieldId, message: problem });
	// defineProperty: a field id such as __proto__ must stay a plain key, not change the prototype
	else
		Object.defineProperty(target, rule.fieldId, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
}

function readBody(body: Record<string, unknown>, ctx: WriteContext, mode: Mode) {
	const rules = rulesFor(ctx.schema);
	const write = emptyWrite();
	const problems: ErrorDetail[] = [];
	for (const [key, value] of Object.entries(body)) {
		if (key === 'customFields' || value === undefined) continue;
		const rule = rules.get(key);
		if (READ_ONLY_LEAD_FIELDS.has(key)) {
			problems.push({ field: key, message: `${key} is set by the service and cannot be sent` });
		} else if (!rule) {
			problems.push(unknownFieldProblem(key));
		} else if (rule.custom) {
			problems.push({
				field: key,
				message: `"${key}" is a custom field: send it under customFields (customFields.${key})`,
			});
		} else {
			takeValue(rule, value, mode, write, problems);
		}
	}
	const custom = body.customFields;
	if (custom !== undefined && custom !== null) {
		if (typeof custom !== 'object' || Array.isArray(custom)) {
			problems.push({
				field: 'customFields',
				message: 'customFields must be an object keyed by fieldId',
			});
		} else {
			for (const [key, value] of Object.entries(custom as Record<string, unknown>)) {
				if (value === undefined) continue;
				const rule = rules.get(key);
				if (!rule) {
					problems.push({
						field: key,
						message: `Unknown custom field "${key}": customFields.${key} is not in the lead schema`,
					});
				} else if (!rule.custom) {
					problems.push({
						field: key,
						message: `"${key}" is a standard field: send it at the top level, not under customFields`,
					});
				} else {
					takeValue(rule, value, mode, write, problems);
				}
			}
		}
	}
	return { rules, write, problems };
}

/** Spec 4 rule 2 and 5.8: self-serve keys credit a partner organization and one of its agents. */
function checkCredit(
	orgId: unknown,
	agentId: unknown,
	ctx: WriteContext,
	problems: ErrorDetail[],
	reported: Set<string>,
): void {
	if (ctx.selfServe) {
		for (const [field, value] of [
			['partnerOrganizationId', orgId],
			['agentId', agentId],
		] as const) {
			if (isBlank(value) && !reported.has(field)) {
				problems.push({ field, message: `${field} is required when using a self-serve API key` });
				reported.add(field);
			}
		}
	}
	const org = typeof orgId === 'string' && orgId !== '' ? ctx.organizations.get(orgId) : undefined;
	if (typeof orgId === 'string' && orgId !== '' && !org && !reported.has('partnerOrganizationId')) {
		problems.push({
			field: 'partnerOrganizationId',
			message: `Partner organization "${orgId}" does not exist`,
		});
	}
	if (typeof agentId !== 'string' || agentId === '' || reported.has('agentId')) return;
	const agent = ctx.agents.get(agentId);
	if (!agent) {
		problems.push({ field: 'agentId', message: `Agent "${agentId}" does not exist` });
	} else if (org && agent.partnerOrganizationId !== org.id) {
		problems.push({
			field: 'agentId',
			message: `Agent "${agentId}" does not belong to partner organization "${org.id}"`,
		});
	}
}

export function validateLeadCreate(body: Record<string, unknown>, ctx: WriteContext): LeadWrite {
	const { rules, write, problems } = readBody(body, ctx, 'create');
	const reported = new Set(problems.map((p) => p.field));
	for (const rule of rules.values()) {
		if (!rule.required || !rule.creatable || reported.has(rule.fieldId)) continue;
		const value = rule.custom ? write.customSet[rule.fieldId] : write.set[rule.fieldId];
		if (isBlank(value)) {
			problems.push({ field: rule.fieldId, message: `${fieldName(rule)} is required` });
			reported.add(rule.fieldId);
		}
	}
	checkCredit(write.set.partnerOrganizationId, write.set.agentId, ctx, problems, reported);
	if (problems.length > 0) throw validationError(problems, 'Lead');
	return write;
}

export function validateLeadUpdate(
	body: Record<string, unknown>,
	existing: Lead,
	ctx: WriteContext,
): LeadWrite {
	const { write, problems } = readBody(body, ctx, 'update');
	const touchesCredit = ['partnerOrganizationId', 'agentId'].some(
		(field) => field in write.set || write.unset.includes(field),
	);
	if (touchesCredit) {
		const result = (field: 'partnerOrganizationId' | 'agentId') =>
			write.unset.includes(field)
				? undefined
				: field in write.set
					? write.set[field]
					: existing[field];
		const reported = new Set(problems.map((p) => p.field));
		checkCredit(result('partnerOrganizationId'), result('agentId'), ctx, problems, reported);
	}
	if (problems.length > 0) throw validationError(problems, 'Lead');
	return write;
}
