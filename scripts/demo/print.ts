import type { DemoAccount } from './account';

function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${count === 1 ? one : many}`;
}

function byTopic(counts: Record<string, number>): string {
	return Object.entries(counts)
		.map(([topic, count]) => `${topic} ${count}`)
		.join(', ');
}

/** The account as a short text for a terminal. It holds ids and messages, never a secret. */
export function formatAccount(account: DemoAccount): string {
	const { push, trigger } = account;
	const nameWidth = Math.max(0, ...push.created.map((lead) => lead.name.length));
	const emailWidth = Math.max(0, ...push.created.map((lead) => lead.email.length));
	const lines = [
		`Partner Referral Service demo: n8n workflows on ${account.engine}, against the local simulator`,
		'',
		`Workflow "Push leads": Lead List -> Create Leads (On Error: Continue) -> Read Back (Get Many) -> Update One`,
		`  ${plural(push.rowsSubmitted, 'row')} in, ${plural(push.created.length, 'lead')} created:`,
		...push.created.map(
			(lead) =>
				`    row ${lead.row}  ${lead.name.padEnd(nameWidth)}  ${lead.email.padEnd(emailWidth)}  id ${lead.id}`,
		),
		`  ${plural(push.failed.length, 'row')} failed, the others went through:`,
		...push.failed.map(
			(failure) =>
				`    row ${failure.row}  ${failure.name}${failure.httpCode ? ` (HTTP ${failure.httpCode})` : ''}: ${failure.message}`,
		),
		`  Get Many read back ${plural(push.readBack.length, 'lead')}.`,
		push.updated
			? `  Updated ${push.updated.name} (id ${push.updated.id}): deal value now ${String(push.updated.value)}.`
			: '  No lead was updated.',
		'',
		`Workflow "Lead events": Partner Referral Service Trigger on ${trigger.topics.join(', ')}, active`,
		`  Activation subscribed: the service listed ${plural(trigger.subscriptionsWhileActive, 'subscription')} for this key.`,
		`  ${plural(trigger.deliveriesReceived, 'delivery', 'deliveries')} received: ${trigger.deliveriesVerified} signatures verified and acknowledged, ${trigger.deliveriesRefused} refused.`,
		`  ${plural(trigger.executions, 'execution')} started (${byTopic(trigger.executionsByTopic) || 'none'}), ${trigger.fullLeadsFetched} with the full lead fetched.`,
		`  ${plural(trigger.duplicatesSuppressed, 'duplicate delivery', 'duplicate deliveries')} suppressed (acknowledged, not run twice).`,
		`  Deactivated: ${plural(trigger.subscriptionsLeft, 'subscription')} left on the service.`,
		'',
		`${plural(account.tokenRequests, 'access token request')} for ${plural(account.apiRequests, 'API request')} (the token is cached with the credential).`,
		`Finished in ${(account.durationMs / 1000).toFixed(1)} s.`,
	];
	return `${lines.join('\n')}\n`;
}
