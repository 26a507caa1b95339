import type {
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodeTypeDescription,
	NodeParameterValueType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { withPollTimes } from '../docs/node-parameters';

/**
 * Checks a stored node's parameters against our node description, as n8n's editor would
 * read them: every parameter must exist and be displayed for the chosen resource and
 * operation, and every fixed value (options, collection keys, modes) must be one the
 * description offers. Values that are expressions are left to run time.
 */

const MAPPING_MODES = ['defineBelow', 'autoMapInputData'];

function isExpression(value: unknown): boolean {
	return typeof value === 'string' && value.startsWith('=');
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function optionValues(property: INodeProperties): unknown[] {
	return (property.options ?? []).map((option) => (option as { value?: unknown }).value);
}

/** Problems with one value of a property (empty: it fits). `fieldIds`: the lead fields a resource mapper may set. */
export function valueProblems(
	property: INodeProperties,
	value: unknown,
	path: string,
	fieldIds: readonly string[],
): string[] {
	if (isExpression(value)) {
		return property.noDataExpression ? [`${path}: takes no expression`] : [];
	}
	// values loaded from the service in the editor (the lead schema) cannot be checked here
	if (property.typeOptions?.loadOptionsMethod) return loadedProblems(property, value, path);
	switch (property.type) {
		case 'options':
			return optionValues(property).includes(value)
				? []
				: [`${path}: "${String(value)}" is not one of ${JSON.stringify(optionValues(property))}`];
		case 'multiOptions':
			if (!Array.isArray(value)) return [`${path}: must be a list`];
			return value
				.filter((entry) => !isExpression(entry) && !optionValues(property).includes(entry))
				.map(
					(entry) =>
						`${path}: "${String(entry)}" is not one of ${JSON.stringify(optionValues(property))}`,
				);
		case 'boolean':
			return typeof value === 'boolean' ? [] : [`${path}: must be true or false`];
		case 'number':
			return typeof value === 'number' ? [] : [`${path}: must be a number`];
		case 'string':
		case 'dateTime':
		case 'json':
		case 'notice':
			return typeof value === 'string' ? [] : [`${path}: must be text`];
		case 'collection':
			return collectionProblems(property, value, path, fieldIds);
		case 'fixedCollection':
			return fixedCollectionProblems(property, value, path, fieldIds);
		case 'resourceLocator':
			return locatorProblems(property, value, path);
		case 'resourceMapper':
			return mapperProblems(value, path, fieldIds);
		default:
			return [`${path}: the check does not know type "${property.type}"`];
	}
}

function collectionProblems(
	property: INodeProperties,
	value: unknown,
	path: string,
	fieldIds: readonly string[],
): string[] {
	if (!isObject(value)) return [`${path}: must be an object`];
	const options = (property.options ?? []) as Array<INodeProperties | INodePropertyCollection>;
	return Object.entries(value).flatMap(([key, inner]) => {
		const option = options.find((candidate) => candidate.name === key);
		if (!option || !('type' in option))
			return [`${path}.${key}: not an option of ${property.displayName}`];
		return valueProblems(option, inner, `${path}.${key}`, fieldIds);
	});
}

/** Loaded options: text, or a list of text for several. */
function loadedProblems(property: INodeProperties, value: unknown, path: string): string[] {
	if (property.type === 'multiOptions')
		return Array.isArray(value) && value.every((entry) => typeof entry === 'string')
			? []
			: [`${path}: must be a list of text`];
	return typeof value === 'string' ? [] : [`${path}: must be text`];
}

/** Groups of values: each key a group the description has, its entries of the group's fields. */
function fixedCollectionProblems(
	property: INodeProperties,
	value: unknown,
	path: string,
	fieldIds: readonly string[],
): string[] {
	if (!isObject(value)) return [`${path}: must be an object`];
	const groups = (property.options ?? []) as INodePropertyCollection[];
	const multiple = property.typeOptions?.multipleValues === true;
	return Object.entries(value).flatMap(([key, inner]) => {
		const group = groups.find((candidate) => candidate.name === key);
		if (!group) return [`${path}.${key}: not a group of ${property.displayName}`];
		if (multiple && !Array.isArray(inner)) return [`${path}.${key}: must be a list`];
		const entries = (multiple ? inner : [inner]) as unknown[];
		const fields: INodeProperties = { ...property, type: 'collection', options: group.values };
		return entries.flatMap((entry, index) =>
			collectionProblems(fields, entry, `${path}.${key}[${index}]`, fieldIds),
		);
	});
}

function locatorProblems(property: INodeProperties, value: unknown, path: string): string[] {
	if (!isObject(value) || value.__rl !== true)
		return [`${path}: must be a resource locator value ({ __rl: true, mode, value })`];
	const modes = (property.modes ?? []).map((mode) => mode.name);
	const problems = modes.includes(String(value.mode))
		? []
		: [`${path}.mode: "${String(value.mode)}" is not one of ${JSON.stringify(modes)}`];
	if (typeof value.value !== 'string') problems.push(`${path}.value: must be text`);
	return problems;
}

function mapperProblems(value: unknown, path: string, fieldIds: readonly string[]): string[] {
	if (!isObject(value)) return [`${path}: must be a resource mapper value`];
	const problems: string[] = [];
	if (!MAPPING_MODES.includes(String(value.mappingMode)))
		problems.push(
			`${path}.mappingMode: "${String(value.mappingMode)}" is not one of ${JSON.stringify(MAPPING_MODES)}`,
		);
	if (value.value !== null && !isObject(value.value))
		problems.push(`${path}.value: must be an object or null`);
	for (const key of Object.keys(isObject(value.value) ? value.value : {})) {
		if (!fieldIds.includes(key))
			problems.push(
				`${path}.value.${key}: not a standard lead field (custom fields differ per portal)`,
			);
	}
	for (const key of ['matchingColumns', 'schema'])
		if (!Array.isArray(value[key])) problems.push(`${path}.${key}: must be a list`);
	return problems;
}

/** Every problem of a node's stored parameters against the description of its type. */
export function parameterProblems(
	description: INodeTypeDescription,
	node: INode,
	fieldIds: readonly string[],
): string[] {
	// A polling node's Poll Times come from n8n's loader, not from the node's own description.
	description = withPollTimes(description);
	const stored = node.parameters;
	// What n8n shows: stored values with defaults, hidden parameters dropped.
	const shown =
		NodeHelpers.getNodeParameters(description.properties, stored, true, false, node, description) ??
		{};
	const problems: string[] = [];
	for (const [name, value] of Object.entries(stored)) {
		const candidates = description.properties.filter((property) => property.name === name);
		if (candidates.length === 0) {
			problems.push(`${name}: not a parameter of ${description.displayName}`);
			continue;
		}
		const displayed = candidates.filter((property) =>
			NodeHelpers.displayParameter(shown as INodeParameters, property, node, description),
		);
		if (displayed.length === 0 || !(name in shown)) {
			problems.push(
				`${name}: not shown for resource "${String(shown.resource)}", operation "${String(shown.operation)}"`,
			);
			continue;
		}
		// A name can have one property per operation: the value must fit one that is displayed.
		const checks = displayed.map((property) =>
			valueProblems(property, value as NodeParameterValueType, name, fieldIds),
		);
		if (!checks.some((list) => list.length === 0)) problems.push(...checks[0]);
	}
	return problems;
}
