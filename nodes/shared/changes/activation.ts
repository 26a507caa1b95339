/**
 * n8n's activation modes that start a trigger anew (activating the workflow, or creating it
 * active): what the portal holds then never runs. The others (a restart, an update of the
 * workflow, a change of leader) carry on from what the trigger knew.
 */
const NEW_ACTIVATION_MODES = new Set(['activate', 'create']);

export function isNewActivation(activationMode: string): boolean {
	return NEW_ACTIVATION_MODES.has(activationMode);
}
