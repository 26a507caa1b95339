import type { NodeConnectionType } from 'n8n-workflow';
import * as workflow from 'n8n-workflow';

/** NodeConnectionTypes exists from n8n 1.85 on; an older n8n gets 'main', not a TypeError. */
const connectionTypes = (workflow as Partial<typeof workflow>).NodeConnectionTypes;

export const MAIN_CONNECTION: NodeConnectionType = connectionTypes?.Main ?? 'main';
