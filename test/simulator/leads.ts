import { Router, type Request, type Response } from 'express';

import type { SimContext } from './context';
import {
	schemaInShape,
	sendCreatedLead,
	sendListPage,
	sendServiceData,
	sendUpdatedLead,
} from './answers';
import { ApiError, requireJsonContentType, requireObjectBody } from './errors';
import { createLead, updateLead } from './lead-ops';
import { readPageRequest, sliceInOrder } from './paging';
import type { ApiKey, Lead } from './types';
import { validateLeadCreate, validateLeadUpdate, type WriteContext } from './validation';

/**
 * Lead REST endpoints (spec section 4) under `{base}/1.0/api/company/{companyId}`.
 * The bearer/company check has already run (auth.ts). Default personality:
 *   create  -> 201 { data: lead }
 *   update  -> 200 { data: updated lead }
 *   list    -> 200 { data: [...] }, ?skip=N&limit=M, limit 1..100 (default 20), oldest first.
 * Other personalities shape the answers differently (answers.ts) and page differently (paging.ts).
 */

const BASE = '/1.0/api/company/:companyId';

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

export function leadsRouter(ctx: SimContext): Router {
	const router = Router();

	router.get(`${BASE}/schema/lead`, (_req, res) => {
		const raw = ctx.state.rawSchema;
		if (raw) {
			res.status(200).json(raw.body);
			return;
		}
		sendServiceData(res, 200, {
			unifiedFields: schemaInShape(ctx.state.schema, ctx.personality.picklistShape),
		});
	});

	router.post(`${BASE}/leads`, (req, res) => {
		requireJsonContentType(req);
		const write = validateLeadCreate(requireObjectBody(req), writeContext(ctx, keyOf(res)));
		sendCreatedLead(res, createLead(ctx, write));
	});

	router.get(`${BASE}/leads`, (req, res) => {
		const page = readPageRequest(req, ctx.personality);
		const order = ctx.personality.listOrder;
		const all =
			order === 'lastChangedLast' ? ctx.state.leads.byLastChange() : ctx.state.leads.all();
		sendListPage(res, sliceInOrder(all, page, order), {
			skip: page.skip,
			total: all.length,
		});
	});

	router.get(`${BASE}/leads/:leadId`, (req, res) => {
		sendServiceData(res, 200, findLead(ctx, req));
	});

	router.patch(`${BASE}/leads/:leadId`, (req, res) => {
		const lead = findLead(ctx, req);
		requireJsonContentType(req);
		const write = validateLeadUpdate(requireObjectBody(req), lead, writeContext(ctx, keyOf(res)));
		sendUpdatedLead(res, updateLead(ctx, lead, write), write);
	});

	return router;
}
