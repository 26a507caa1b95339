import type { TriggerPanelDefinition } from 'n8n-workflow';

/** Editor texts instead of n8n's generic hint; 2.x "publishes" where 1.x "activates": name both. */
export const EVENT_TRIGGER_DESCRIPTION =
	'Waiting for you to create or change a lead in the partner portal';

export const ACTIVATION_MESSAGE =
	'The Partner Referral Service now sends this workflow every lead event you chose, within seconds. Each one starts an execution of its own (unless you chose more Leads per Execution Under Load), listed under Executions. If you unpublish it (deactivate it, on n8n 1.x), the events already received and not run yet run when you publish it again, marked "publishedAgain". A new API key saved into the credential is used without publishing again.';

const TEST_EVENT =
	"<b>While building your workflow</b>, click 'Execute step' (n8n then listens for a test event), then create or change a lead in the partner portal. The service sends the event to n8n's test URL and the execution shows up in this editor. The service delivers to HTTPS addresses only: n8n must be reachable at its public address, set in N8N_WEBHOOK_URL (n8n 2.35 and later; WEBHOOK_URL before 2.35 and on n8n 1.x); otherwise use the Partner Referral Service Polling Trigger.";

export const TRIGGER_PANEL: TriggerPanelDefinition = {
	header: 'Pull in lead events from the Partner Referral Service',
	executionsHelp: {
		inactive: `${TEST_EVENT}<br /><br /><b>Once you're happy with your workflow</b>, publish it (activate it on n8n 1.x). Publishing subscribes to the events you chose, and every lead event then starts an execution. These executions show up in the <a data-key="executions">executions list</a>, but not in the editor.`,
		active: `${TEST_EVENT}<br /><br /><b>Your workflow also runs automatically</b>, since it is published (active on n8n 1.x): every lead event you chose starts an execution. These executions show up in the <a data-key="executions">executions list</a>, but not in the editor. Unpublishing it keeps the events received and not run yet: they run, marked "publishedAgain", when you publish it again (activate it, on n8n 1.x).`,
	},
	activationHint: {
		inactive:
			'Once you have finished building your workflow, publish it (activate it on n8n 1.x) to have it run on every lead event, without this button (you just won’t see those executions here).',
		active:
			'This node also runs automatically on every lead event you chose (but those executions won’t show up here).',
	},
};
