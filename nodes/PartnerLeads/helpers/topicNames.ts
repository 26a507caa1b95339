/** The names the editor shows for the service's lead event topics (as in the Topic and Events options). */
const TOPIC_NAMES: Record<string, string> = {
	'lead/create': 'Lead Created',
	'lead/update': 'Lead Updated',
	'lead/delete': 'Lead Deleted',
};

export function topicName(topic: unknown): string {
	const raw = typeof topic === 'string' ? topic : String(topic ?? '');
	return TOPIC_NAMES[raw] ?? raw;
}
