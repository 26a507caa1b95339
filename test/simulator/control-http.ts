/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';

import type { SimContext } from './context';
import { ApiError, sendData } from './errors';
import type { Lead, SchemaField, SimulatorControl } from './types';

/**
 * HTTP mirror of the control API under `/__control`, for other processes (e2e suite, demo).
 * NOT part of the Partner Referral Service: no auth, no faults, not counted in stats.
 * Every answer is `{ data, context, status }`; a refused call is `{ status, error: { code, message } }`
 * with 400 `control_error` (or 404 `not_found` for an unknown lead / key).
 *
 *   GET    /__control                            addresses, company id, default key, organizations, agents
 *   GET    /__control/keys                       POST /__control/keys {selfServe?, clientId?, clientSecret?}
 *   POST   /__control/keys/:clientId/revoke      POST /__control/tokens/expire
 *   GET    /__control/schema                     PUT  /__control/schema  [fields] | {fields}
 *   PUT    /__control/schema/raw {body}          (body null restores the normal response)
 *   GET    /__control/organizations              POST /__control/organizations {id?, name?}
 *   GET    /__control/organizations/:id/agents   POST /__control/organizations/:id/agents {id?, name?}
 *   POST   /__control/leads/seed {count} | {leads} | [leads]   (+ summary: true -> {count, ids})
 *   GET    /__control/leads                      GET  /__control/leads/:id
 *   POST   /__control/portal/leads {fields}      PATCH /__control/portal/leads/:id   DELETE /__control/portal/leads/:id
 *   GET    /__control/subscriptions              DELETE /__control/subscriptions/:id   GET /__control/deliveries
 *   PUT    /__control/delivery-faults {duplicateRate?, reorder?}
 *   POST   /__control/deliveries/wait {timeoutMs?}   (504 deliveries_pending on timeout)
 *   PUT    /__control/faults {route, faults|null}    DELETE /__control/faults
 *   PUT    /__control/rate-limit {requestsPerSecond|null}
 *   PUT    /__control/clock-offset {offsetMs}
 *   GET    /__control/stats                      DELETE /__control/stats (also POST /__control/stats/reset)
 *   POST   /__control/reset
 */

type Handler = (req: Request, res: Response) => unknown;

/** Control calls throw plain Errors for bad input; those become 400 control_error. */
function call(status: number, handler: Handler): RequestHandler {
	return async (req, res) => {
		try {
			const data = await handler(req, res);
			if (!res.headersSent) sendData(res, status, data ?? null);
		} catch (error) {
			if (error instanceof ApiError) throw error;
			throw new ApiError(
				400,
				'control_error',
				error instanceof Error ? error.message : String(error),
			);
		}
	};
}

function body(req: Request): Record<string, unknown> {
	const value: unknown = req.body;
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: {};
}

function param(req: Request, name: string): string {
	return String(req.params[name]);
}

function requireLead(control: SimulatorControl, id: string): void {
	if (!control.getLead(id)) throw new ApiError(404, 'not_found', `Lead "${id}" not found`);
}

export function controlRouter(
	ctx: SimContext,
	control: SimulatorControl,
	info: () => unknown,
): Router {
	const router = Router();
	// Seeding thousands of leads by HTTP needs more than the API's 1 MB.
	router.use(express.json({ limit: '20mb', type: () => true }));

	router.get(
		'/',
		call(200, () => info()),
	);

	router.get(
		'/keys',
		call(200, () => control.listKeys()),
	);
	router.post(
		'/keys',
		call(201, (req) => control.createKey(body(req))),
	);
	router.post(
		'/keys/:clientId/revoke',
		call(200, (req) => {
			const clientId = param(req, 'clientId');
			if (!ctx.state.keys.has(clientId))
				throw new ApiError(404, 'not_found', `No API key with client id ${clientId}`);
			control.revokeKey(clientId);
			return { clientId, revoked: true };
		}),
	);
	router.post(
		'/tokens/expire',
		call(200, () => control.expireTokens()),
	);

	router.get(
		'/schema',
		call(200, () => control.getSchema()),
	);
	router.put(
		'/schema',
		call(200, (req) => {
			const fields = (Array.isArray(req.body) ? req.body : body(req).fields) as SchemaField[];
			control.setSchema(fields);
			return control.getSchema();
		}),
	);
	router.put(
		'/schema/raw',
		call(200, (req) => control.setRawSchemaResponse(body(req).body ?? null)),
	);

	router.get(
		'/organizations',
		call(200, () => control.listPartnerOrganizations()),
	);
	router.post(
		'/organizations',
		call(201, (req) => control.addPartnerOrganization(body(req))),
	);
	router.get(
		'/organizations/:id/agents',
		call(200, (req) => control.listAgents(param(req, 'id'))),
	);
	router.post(
		'/organizations/:id/agents',
		call(201, (req) => control.addAgent(param(req, 'id'), body(req))),
	);

	router.post(
		'/leads/seed',
		call(201, (req) => {
			const input = body(req);
			const leads = Array.isArray(req.body)
				? (req.body as Array<Partial<Lead>>)
				: Array.isArray(input.leads)
					? (input.leads as Array<Partial<Lead>>)
					: Number(input.count ?? 0);
			const created = control.seedLeads(leads);
			return input.summary === true
				? { count: created.length, ids: created.map((lead) => lead.id) }
				: created;
		}),
	);
	router.get(
		'/leads',
		call(200, () => control.listLeads()),
	);
	router.get(
		'/leads/:id',
		call(200, (req) => {
			requireLead(control, param(req, 'id'));
			return control.getLead(param(req, 'id'));
		}),
	);

	router.post(
		'/portal/leads',
		call(201, (req) => control.portalCreateLead(body(req))),
	);
	router.patch(
		'/portal/leads/:id',
		call(200, (req) => {
			requireLead(control, param(req, 'id'));
			return control.portalUpdateLead(param(req, 'id'), body(req));
		}),
	);
	router.delete(
		'/portal/leads/:id',
		call(200, (req) => {
			requireLead(control, param(req, 'id'));
			control.portalDeleteLead(param(req, 'id'));
			return { id: param(req, 'id'), deleted: true };
		}),
	);

	router.get(
		'/subscriptions',
		call(200, () => control.listSubscriptions()),
	);
	router.delete(
		'/subscriptions/:id',
		call(200, (req) => {
			const id = param(req, 'id');
			if (!ctx.state.subscriptions.has(id))
				throw new ApiError(404, 'not_found', `No subscription with id ${id}`);
			control.portalDeleteSubscription(id);
			return { id, deleted: true };
		}),
	);
	router.get(
		'/deliveries',
		call(200, () => control.deliveries()),
	);
	router.put(
		'/delivery-faults',
		call(200, (req) => control.setDeliveryFaults(body(req))),
	);
	router.post(
		'/deliveries/wait',
		call(200, async (req) => {
			const timeoutMs = Number(body(req).timeoutMs ?? 10_000);
			try {
				await control.waitForDeliveries(timeoutMs);
			} catch (error) {
				throw new ApiError(504, 'deliveries_pending', (error as Error).message);
			}
			return { idle: true };
		}),
	);

	router.put(
		'/faults',
		call(200, (req) => {
			const { route, faults } = body(req);
			if (typeof route !== 'string')
				throw new Error('route is required, e.g. "POST /leads" or "*"');
			control.setFaults(route, (faults ?? null) as Parameters<SimulatorControl['setFaults']>[1]);
		}),
	);
	router.delete(
		'/faults',
		call(200, () => control.clearFaults()),
	);
	router.put(
		'/rate-limit',
		call(200, (req) => {
			const rate = body(req).requestsPerSecond;
			control.setRateLimit(rate === null || rate === undefined ? null : Number(rate));
		}),
	);

	router.put(
		'/clock-offset',
		call(200, (req) => control.setClockOffset(Number(body(req).offsetMs))),
	);

	router.get(
		'/stats',
		call(200, () => control.stats()),
	);
	router.delete(
		'/stats',
		call(200, () => control.resetStats()),
	);
	router.post(
		'/stats/reset',
		call(200, () => control.resetStats()),
	);
	router.post(
		'/reset',
		call(200, () => control.reset()),
	);

	router.use((req) => {
		throw new ApiError(
			404,
			'route_not_found',
			`No control route ${req.method} ${req.baseUrl}${req.path}`,
		);
	});
	return router;
}
