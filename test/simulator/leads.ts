import { Router, type Request, type Response } from 'express';

import type { SimContext } from './context';
import { ApiError, requireJsonContentType, requireObjectBody, sendData, validationError, type ErrorDetail } from './errors';
import { createLead, updateLead } from './lead-ops';
import type { ApiKey, Lead } from './types';
import { validateLeadCreate, validateLeadUpdate, type WriteContext } from './validation';

/**
 * Lead REST endpoints (spec section 4) under `{base}/1.0/api/company/{companyId}`.
 * The bearer/company check has already run (auth.ts). Decisions (DESIGN.md):
 *   create  -> 201 { data: lead }
 *   update  -> 200 { data: updated lead }
 *   list    -> 200 { data: [...] }, ?skip=N&limit=M, limit 1..100 (default 20), oldest first,
 *              a page shorter than `limit` is the last one.
 */

const BASE = '/1.0/api/company/:companyId';
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

function keyOf(res: Response): ApiKey {
	return res.locals.key as ApiKey;
}

function writeContext(ctx: SimContext, key: ApiKey): WriteContext {
	return {
		schema: ctx.state.schema,
		selfServe: key.selfServe,
		organizations: ctx.state.organizations,
		agents: ctx.state.agents,
	};
}

function findLead(ctx: SimContext, req: Request): Lead {
	const id = String(req.params.leadId);
	const lead = ctx.state.leads.get(id);
	if (!lead) throw new ApiError(404, 'not_found', `Lead "${id}" not found`);
	return lead;
}

/** A non-negative integer query parameter within [min, max], or a details entry saying what is wrong. */
function integerParam(
	req: Request,
	name: string,
	fallback: number,
	min: number,
	max: number,
	problems: ErrorDetail[],
): number {
	const raw = req.query[name];
	if (raw === undefined) return fallback;
	const range = max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
	if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
		problems.push({ field: name, message: `${name} must be ${range} (got ${JSON.stringify(raw)})` });
		return fallback;
	}
	const value = Number(raw);
	if (value < min || value > max) {
		problems.push({ field: name, message: `${name} must be ${range} (got ${raw})` });
	}
	return value;
}

export function leadsRouter(ctx: SimContext): Router {
	const router = Router();

	router.get(`${BASE}/schema/lead`, (_req, res) => {
		const raw = ctx.state.rawSchema;
		if (raw) {
			res.status(200).json(raw.body);
			return;
		}
		sendData(res, 200, { unifiedFields: ctx.state.schema });
	});

	router.post(`${BASE}/leads`, (req, res) => {
		requireJsonContentType(req);
		const write = validateLeadCreate(requireObjectBody(req), writeContext(ctx, keyOf(res)));
		sendData(res, 201, createLead(ctx, write));
	});

	router.get(`${BASE}/leads`, (req, res) => {
		const problems: ErrorDetail[] = [];
		const skip = integerParam(req, 'skip', 0, 0, Infinity, problems);
		const limit = integerParam(req, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, problems);
		if (problems.length > 0) throw validationError(problems, 'Query');
		sendData(res, 200, ctx.state.leads.page(skip, limit));
	});

	router.get(`${BASE}/leads/:leadId`, (req, res) => {
		sendData(res, 200, findLead(ctx, req));
	});

	router.patch(`${BASE}/leads/:leadId`, (req, res) => {
		const lead = findLead(ctx, req);
		requireJsonContentType(req);
		const write = validateLeadUpdate(requireObjectBody(req), lead, writeContext(ctx, keyOf(res)));
		sendData(res, 200, updateLead(ctx, lead, write));
	});

	return router;
}
