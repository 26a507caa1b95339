/**
 * Partner Referral Service simulator: a faithful local stand-in for the service in
 * `shared/spec/partner-referral-service.md`; where the spec says "not shown", the default
 * personality makes one plausible choice and the others vary it (personality.ts).
 *
 *   const sim = await startSimulator({ allowInsecureLoopbackWebhooks: true });
 *   // sim.url / sim.devUrl / sim.authUrl / sim.companyId / sim.defaultKey -> credential values
 *   // sim.control -> portal actions, faults, stats;  `${sim.controlUrl}` -> the same over HTTP
 *   await sim.close();
 *
 * Status codes chosen where the spec is silent (default personality): lead create 201,
 * everything else 200; validation 400 `validation_failed` (details per field); unknown ids
 * 404 `not_found`. `startSimulator({ personality })` or $PARTNER_SIM_PERSONALITY picks another
 * plausible service (personality.ts).
 */
export { startSimulator } from './server';
export { DEFAULT_LEAD_SCHEMA, STANDARD_LEAD_FIELD_IDS } from './schema';
export { signedDelivery, USER_AGENT } from './deliveries';
export { ROUTE_KEYS } from './routes';
export {
	DEFAULT_PERSONALITY,
	PERSONALITIES,
	PERSONALITY_ENV_VAR,
	personalityNamed,
	resolvePersonality,
	type Personality,
} from './personality';
export type {
	Agent,
	ApiKey,
	DeliveryAttempt,
	DeliveryFaults,
	DeliveryOptions,
	Environment,
	Lead,
	LeadTopic,
	PartnerOrganization,
	PicklistValue,
	RequestStats,
	RouteFaults,
	SchemaField,
	SchemaFieldType,
	Simulator,
	SimulatorControl,
	SimulatorOptions,
	Subscription,
} from './types';
