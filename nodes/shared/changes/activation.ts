/** Modes that start a trigger anew: what the portal holds then never runs. Others carry on. */
const NEW_ACTIVATION_MODES = new Set(['activate', 'create']);

export function isNewActivation(activationMode: string): boolean {
	return NEW_ACTIVATION_MODES.has(activationMode);
}
