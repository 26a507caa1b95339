import type { NodeConnectionType } from 'n8n-workflow';
import * as workflow from 'n8n-workflow';

/**
 * The main connection of the nodes' inputs and outputs. n8n loads the package with its own
 * n8n-workflow, which exports `NodeConnectionTypes` from n8n 1.85 on; before that the
 * connection is named by its text, 'main' (the value NodeConnectionTypes.Main has since).
 * Read through the namespace so that an older n8n gets the text instead of a TypeError.
 */
const connectionTypes = (workflow as Partial<typeof workflow>).NodeConnectionTypes;

export const MAIN_CONNECTION: NodeConnectionType = connectionTypes?.Main ?? 'main';
