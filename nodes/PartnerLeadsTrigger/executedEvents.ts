import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { eventMark, SeenEvents } from './deduplication';
import { eventScope } from './delivery';
import { judgeEventAge, maxEventAgeSeconds } from './eventAge';
import { isLeadTopic } from './events';

/**
 * Records, from inside the execution, the events this trigger started it with.
 *
 * The delivery handler records each event in static data already, but n8n 2.x does not save
 * that record: it starts the execution (which resets static data's "changed" flag) before it
 * saves the webhook's static data, so the record lives only in the process's memory and an
 * event delivered again after a restart would run twice. n8n saves an execution's static data
 * when the execution ends, on every line and in queue mode on the worker: recording the event
 * here again makes it survive restarts and reach every process that reads static data.
 */
export function recordExecutedEvents(context: IExecuteFunctions, items: INodeExecutionData[]): void {
	const options = context.getNodeParameter('options', 0, {}) as { maxEventAgeHours?: number };
	const maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
	const seen = new SeenEvents(context.getWorkflowStaticData('node'), eventScope(context), { maxAgeSeconds });
	for (const item of items) {
		const event = item.json.event as IDataObject | undefined;
		if (typeof event?.id !== 'string' || !isLeadTopic(event.topic) || typeof event.timestamp !== 'string') continue;
		const age = judgeEventAge(event.timestamp, maxAgeSeconds);
		if (age.verdict !== 'inWindow') continue;
		const mark = eventMark({ id: event.id, topic: event.topic, timestamp: event.timestamp }, age.timeSeconds);
		// also when this process's memory knows it already: the point is to write it where n8n saves it
		seen.remember(mark);
	}
}
