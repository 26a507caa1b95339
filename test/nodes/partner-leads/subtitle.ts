import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/**
 * The canvas subtitle as a sentence, "Create or update a lead" rather than "upsert: lead": each
 * operation's `action` (the words the node panel lists it by), looked up by resource and
 * operation. An n8n expression cannot import code, so the table is written into it.
 */
export function subtitleExpression(properties: INodeProperties[]): string {
	const actions: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'operation' || property.type !== 'options') continue;
		const resources = [property.displayOptions?.show?.resource ?? []].flat().map(String);
		for (const option of (property.options ?? []) as INodePropertyOptions[])
			for (const resource of resources)
				if (option.action) actions[`${resource}:${String(option.value)}`] = option.action;
	}
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] }}`;
}
