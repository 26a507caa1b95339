import type { Response } from 'express';

import { requestIdOf } from './errors';
import type { LeadWrite } from './validation';
import { listHintFields, type PagePosition } from './paging';
import { personalityOf, type Personality } from './personality';
import type { Lead, SchemaField } from './types';

/**
 * The one place where the service's success answers take the personality's shape
 * (errors: errors.ts). Routers say what they answer; this module says how it looks.
 * Every answer goes through `res.json` (even an empty one), so an injected
 * "effect applied, answer lost" fault (faults.ts) can replace any of them.
 */

function send(
	res: Response,
	status: number,
	data: unknown,
	beside: Record<string, unknown> = {},
): void {
	if (personalityOf(res).bodies === 'bare') {
		res.status(status).json(data);
		return;
	}
	res.status(status).json({ data, ...beside, context: { requestId: requestIdOf(res) }, status });
}

/** No body at all: 204, or 200 with zero bytes (still labelled JSON, as such services do). */
function sendNothing(res: Response, status: 200 | 204): void {
	res.status(status).json(undefined);
}

export function sendServiceData(res: Response, status: number, data: unknown): void {
	send(res, status, data);
}

/** A list page; with wrapped bodies the personality's end hint sits beside `data`. */
export function sendListPage(res: Response, items: unknown[], position: PagePosition): void {
	send(res, 200, items, listHintFields(personalityOf(res), items.length, position));
}

export function sendCreatedLead(res: Response, lead: Lead): void {
	send(res, personalityOf(res).leadCreateStatus, lead);
}

/** What PATCH answers: the whole lead, or id + changed fields + updatedAt, or nothing. */
export function sendUpdatedLead(res: Response, lead: Lead, write: LeadWrite): void {
	const answer = personalityOf(res).patchAnswer;
	if (answer === 'noContent') return sendNothing(res, 204);
	if (answer === 'empty') return sendNothing(res, 200);
	if (answer === 'full') return send(res, 200, lead);
	const partial: Record<string, unknown> = { id: lead.id };
	const stored = lead as unknown as Record<string, unknown>;
	for (const key of Object.keys(write.set)) partial[key] = stored[key];
	for (const key of write.unset) partial[key] = null;
	const customKeys = [...Object.keys(write.customSet), ...write.customUnset];
	if (customKeys.length > 0) {
		partial.customFields = Object.fromEntries(
			customKeys.map((key) => [key, lead.customFields[key] ?? null]),
		);
	}
	partial.updatedAt = lead.updatedAt;
	send(res, 200, partial);
}

export function sendSubscriptionDeleted(res: Response, id: string): void {
	if (personalityOf(res).deleteAnswer === 'noContent') return sendNothing(res, 204);
	send(res, 200, { id, deleted: true });
}

/** Schema entries with their picklist options in the personality's shape (entries without `picklistValues` unchanged). */
export function schemaInShape(
	fields: readonly SchemaField[],
	shape: Personality['picklistShape'],
): SchemaField[] {
	if (shape === 'picklistValues-objects') return fields as SchemaField[];
	return fields.map((field) => {
		if (!Array.isArray(field.picklistValues)) return field;
		const { picklistValues, ...rest } = field;
		const objects = picklistValues.map(({ value, label }) => ({ value, label }));
		if (shape === 'options-strings') return { ...rest, options: objects.map((item) => item.value) };
		if (shape === 'values-objects') return { ...rest, values: objects };
		return { ...rest, options: objects };
	});
}
