import type {
	ICredentialType,
	INodeType,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

import { cronNodeOptions } from 'n8n-workflow';

import { PACKAGE, PackageNodeTypes } from '../harness/node-types';

/**
 * The parameters users see, as the documentation names them: display names, nested under
 * their collection ("Options > Parallel Requests"), with the resource and operation they are
 * shown for.
 */

export interface Parameter {
	/** Where it is: the node's or credential's display name. */
	owner: string;
	/** Display names from the top-level parameter down to this one. */
	path: string[];
	property: INodeProperties;
	/** The top-level parameter, whose displayOptions decide where it is shown. */
	top: INodeProperties;
}

function flatten(
	owner: string,
	properties: INodeProperties[],
	path: string[] = [],
	top?: INodeProperties,
): Parameter[] {
	return properties.flatMap((property) => {
		const here = [...path, property.displayName];
		const own: Parameter = { owner, path: here, property, top: top ?? property };
		if (property.type === 'collection')
			return [
				own,
				...flatten(owner, (property.options ?? []) as INodeProperties[], here, top ?? property),
			];
		if (property.type === 'fixedCollection')
			return [
				own,
				...((property.options ?? []) as INodePropertyCollection[]).flatMap((group) =>
					flatten(owner, group.values, [...here, group.displayName], top ?? property),
				),
			];
		return [own];
	});
}

export function nodeParameters(description: INodeTypeDescription): Parameter[] {
	return flatten(description.displayName, description.properties);
}

export function credentialParameters(credential: ICredentialType): Parameter[] {
	return flatten(credential.displayName, credential.properties);
}

function normalized(name: string): string {
	return name.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Whether a documented name is this display name. n8n's conventions add to what the editor
 * shows in ways prose leaves out: a unit ("Maximum Event Age (Hours)") and "Name or ID" on a
 * list loaded from the service ("Match Field Name or ID").
 */
export function namesMatch(documented: string, displayName: string): boolean {
	const wanted = normalized(documented);
	const shown = normalized(displayName);
	return [shown, shown.replace(/\s*\([^)]*\)$/, ''), shown.replace(/ name or id$/, '')].includes(
		wanted,
	);
}

/** Parameters whose path ends with the documented path (one name, or "Options > Name"). */
export function findParameters(parameters: Parameter[], documentedPath: string[]): Parameter[] {
	return parameters.filter(
		({ path }) =>
			path.length >= documentedPath.length &&
			documentedPath.every((name, index) =>
				namesMatch(name, path[path.length - documentedPath.length + index]),
			),
	);
}

/**
 * The resource and operations a heading such as "Lead: Get Many" or "Webhook Subscription:
 * Create, Get Many, Delete" stands for, as parameter values; undefined when it names none.
 */
export function operationsOfHeading(
	description: INodeTypeDescription,
	heading: string,
): { resource: string; operations: string[] } | undefined {
	const [resourceName, operationNames] = heading.split(/:\s*/, 2);
	if (operationNames === undefined) return undefined;
	const options = (name: string) =>
		description.properties
			.filter((property) => property.name === name && property.type === 'options')
			.map((property) => ({
				property,
				options: (property.options ?? []) as INodePropertyOptions[],
			}));
	const resource = options('resource')
		.flatMap(({ options: values }) => values)
		.find((option) => namesMatch(resourceName, option.name));
	if (!resource) return undefined;
	const operationOptions = options('operation')
		.filter(({ property }) =>
			[property.displayOptions?.show?.resource ?? []].flat().includes(resource.value),
		)
		.flatMap(({ options: values }) => values);
	const operations = operationNames
		.split(/,\s*/)
		.map((name) => operationOptions.find((option) => namesMatch(name, option.name))?.value);
	if (operations.some((operation) => operation === undefined)) return undefined;
	return { resource: String(resource.value), operations: operations.map(String) };
}

/** Whether a top-level parameter is shown for the resource and one of the operations. */
export function shownFor(
	parameter: Parameter,
	scope: { resource: string; operations: string[] },
): boolean {
	const show = parameter.top.displayOptions?.show ?? {};
	const resources = show.resource ? [show.resource].flat().map(String) : undefined;
	const operations = show.operation ? [show.operation].flat().map(String) : undefined;
	return (
		(!resources || resources.includes(scope.resource)) &&
		(!operations || operations.some((operation) => scope.operations.includes(operation)))
	);
}

const ON = ['on', 'true', 'yes', 'enabled'];
const OFF = ['off', 'false', 'no', 'disabled'];

/**
 * Whether the default the documentation states ("On", "72 hours", "Email", "1") is the
 * parameter's default: booleans as on/off, numbers by their leading number, options by name or
 * value, anything else as text.
 */
export function defaultMatches(property: INodeProperties, documented: string): boolean {
	const claimed = normalized(documented.replace(/[*`"']/g, ''));
	const actual = property.default;
	if (property.type === 'boolean') return (actual === true ? ON : OFF).includes(claimed);
	if (property.type === 'number') {
		const number = /^-?[\d,]*\.?\d+/.exec(claimed)?.[0];
		return number !== undefined && Number(number.replace(/,/g, '')) === actual;
	}
	if (property.type === 'options') {
		const option = ((property.options ?? []) as INodePropertyOptions[]).find(
			(candidate) => candidate.value === actual,
		);
		return (
			normalized(String(actual)) === claimed ||
			(option !== undefined && normalized(option.name) === claimed)
		);
	}
	return normalized(String(actual)) === claimed;
}

/** The default as the failure message shows it: the option's name too, where there is one. */
export function describeDefault(property: INodeProperties): string {
	const option = ((property.options ?? []) as INodePropertyOptions[]).find(
		(candidate) => 'value' in candidate && candidate.value === property.default,
	);
	return `${JSON.stringify(property.default)}${option ? ` ("${option.name}")` : ''} (${property.type})`;
}

/**
 * What a table's notes say a parameter offers, checked against it: the bold choices of a list
 * (`**Lead Created** (`lead/create`)`) or a resource locator (`**From List**`), and the options a
 * collection lists first ("Agent ID, Created After, … Updated After."). Empty: all true.
 */
export function choiceProblems(matches: Parameter[], notes: string): string[] {
	const property = matches[0]?.property;
	if (!property || matches.some((match) => match.property.type !== property.type)) return [];
	const bold = [...notes.matchAll(/\*\*([^*]+)\*\*(?:\s*\(`([^`]+)`\))?/g)].map((match) => ({
		name: match[1].trim(),
		value: match[2],
	}));
	const offered = (names: Array<{ name: string; value?: unknown }>, what: string) =>
		bold
			.filter(
				(choice) =>
					!names.some(
						(option) =>
							namesMatch(choice.name, option.name) &&
							(choice.value === undefined || String(option.value) === choice.value),
					),
			)
			.map(
				(choice) =>
					`"${choice.name}"${choice.value === undefined ? '' : ` (${choice.value})`} is not one of its ${what}: ${names
						.map(
							(option) =>
								`"${option.name}"${option.value === undefined ? '' : ` (${String(option.value)})`}`,
						)
						.join(', ')}`,
			);
	const all = <T>(pick: (parameter: INodeProperties) => T[]) =>
		matches.flatMap(({ property: each }) => pick(each));
	if (property.type === 'options' || property.type === 'multiOptions')
		return offered(
			all((each) => (each.options ?? []) as INodePropertyOptions[]),
			'options',
		);
	if (property.type === 'resourceLocator')
		return offered(
			all((each) => (each.modes ?? []).map((mode) => ({ name: mode.displayName }))),
			'modes',
		);
	if (property.type === 'collection') {
		const listed = notes
			.split('.')[0]
			.replace(/\*\*/g, '')
			.replace(/\([^)]*\)/g, '')
			.split(/,\s*/)
			.map((name) => name.trim());
		const names = all((each) =>
			((each.options ?? []) as INodeProperties[]).map((option) => option.displayName),
		);
		return listed
			.filter((name) => !names.some((option) => namesMatch(name, option)))
			.map(
				(name) =>
					`"${name}" is not one of its options: ${names.map((option) => `"${option}"`).join(', ')}`,
			);
	}
	return [];
}

/**
 * A polling node's description as n8n's loader hands it to the editor: Poll Times added in
 * front (n8n-core nodes-loader/directory-loader.js applySpecialNodeParameters; the parameter
 * as n8n-core 2.41.1 nodes-loader/constants.js defines it).
 */
export function withPollTimes(description: INodeTypeDescription): INodeTypeDescription {
	if (!description.polling) return description;
	const pollTimes: INodeProperties = {
		displayName: 'Poll Times',
		name: 'pollTimes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Poll Time' },
		default: { item: [{ mode: 'everyMinute' }] },
		description: 'Time at which polling should occur',
		placeholder: 'Add Poll Time',
		options: cronNodeOptions,
	};
	return { ...description, properties: [pollTimes, ...description.properties] };
}

/** The action node as an AI Agent's tool, with the Tool Description parameters n8n adds. */
export function actionToolDescription(): INodeTypeDescription {
	return (new PackageNodeTypes().getByName(`${PACKAGE}.partnerLeadsTool`) as INodeType).description;
}
