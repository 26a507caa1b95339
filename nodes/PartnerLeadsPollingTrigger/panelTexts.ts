import type { TriggerPanelDefinition } from 'n8n-workflow';

import { sweepMinutes } from './sweepPeriod';

/** What n8n's editor says about this trigger (like the webhook trigger's panelTexts.ts). */
export const EVENT_TRIGGER_DESCRIPTION = 'Reading a recent lead from the Partner Referral Service';

export const ACTIVATION_MESSAGE = `Your workflow now reads the list of leads a part at each Poll Time and starts one execution for the leads created, updated or deleted since it last read them. The leads the portal holds now never run. A read-through of the list takes about ${sweepMinutes(10_000)} minutes at 10,000 leads, ${sweepMinutes(50_000)} at 50,000: an update runs within one, a deleted lead is found when the first read-through that no longer lists it ends (within two).`;

const TEST_EVENT =
	"<b>While building your workflow</b>, click 'Fetch Test Event': the newest of the first leads listed shows up in this editor as the workflow would get it. Nothing is changed in the portal.";

const WHEN = `At each Poll Time n8n reads part of the list of leads, as much as 'List Requests per Minute' (Options) allows, and starts one execution for the leads created, updated or deleted since it last read them: new leads at the next Poll Time, updates once the list has been read through (about ${sweepMinutes(10_000)} minutes at 10,000 leads), deletes once a read-through after them ends (within twice that).`;

export const TRIGGER_PANEL: TriggerPanelDefinition = {
	header: 'Check the Partner Referral Service for lead changes',
	executionsHelp: {
		inactive: `${TEST_EVENT}<br /><br /><b>Once you're happy with your workflow</b>, publish it (activate it on n8n 1.x). ${WHEN} The leads the portal holds when you publish never run. These executions show up in the <a data-key="executions">executions list</a>, but not in the editor.`,
		active: `${TEST_EVENT}<br /><br /><b>Your workflow also runs automatically</b>, since it is published (active on n8n 1.x). ${WHEN} These executions show up in the <a data-key="executions">executions list</a>, but not in the editor.`,
	},
	activationHint: {
		inactive:
			'Once you have finished building your workflow, publish it (activate it on n8n 1.x) to have it check for lead changes at every Poll Time (you just won’t see those executions here).',
		active:
			'This node also checks for lead changes at every Poll Time (but those executions won’t show up here).',
	},
};
