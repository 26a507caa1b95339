/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * n8n's own floors, as a throwaway community package written into n8n's community packages
 * folder at run time:
 * - "Floor Create": a minimal action node that sends, per item and one after the other, the
 *   same authenticated POST our node sends, through `httpRequestWithAuthentication` with our
 *   credential type. What any node pays per request in n8n, with nothing of ours but the
 *   credential.
 * - "Floor Trigger": a minimal webhook trigger that only checks the `x-svc-signature-v2`
 *   HMAC over the raw body and starts an execution. What any trigger pays per delivery.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FLOOR_PACKAGE = 'n8n-nodes-bench-floor';
export const FLOOR_CREATE_TYPE = `${FLOOR_PACKAGE}.floorCreate`;
export const FLOOR_TRIGGER_TYPE = `${FLOOR_PACKAGE}.floorTrigger`;

const CREATE_SOURCE = `'use strict';
class FloorCreate {
	constructor() {
		this.description = {
			displayName: 'Floor Create',
			name: 'floorCreate',
			group: ['transform'],
			version: 1,
			description: 'Bench floor: one authenticated POST per item',
			defaults: { name: 'Floor Create' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'partnerLeadsApi', required: true }],
			properties: [{ displayName: 'URL', name: 'url', type: 'string', default: '' }],
		};
	}
	async execute() {
		const items = this.getInputData();
		const url = this.getNodeParameter('url', 0);
		const out = [];
		for (let i = 0; i < items.length; i++) {
			const body = await this.helpers.httpRequestWithAuthentication.call(this, 'partnerLeadsApi', {
				method: 'POST',
				url,
				body: items[i].json,
				json: true,
			});
			out.push({ json: body && body.data ? body.data : body, pairedItem: { item: i } });
		}
		return [out];
	}
}
exports.FloorCreate = FloorCreate;
`;

const TRIGGER_SOURCE = `'use strict';
const { createHmac, timingSafeEqual } = require('crypto');
class FloorTrigger {
	constructor() {
		this.description = {
			displayName: 'Floor Trigger',
			name: 'floorTrigger',
			group: ['trigger'],
			version: 1,
			description: 'Bench floor: checks the HMAC and starts an execution',
			defaults: { name: 'Floor Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
			properties: [{ displayName: 'Secret', name: 'secret', type: 'string', default: '' }],
		};
	}
	async webhook() {
		const request = this.getRequestObject();
		const raw = request.rawBody;
		const presented = String(request.headers['x-svc-signature-v2'] || '');
		const expected = createHmac('sha256', String(this.getNodeParameter('secret'))).update(raw).digest();
		const given = Buffer.from(presented, 'hex');
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
			this.getResponseObject().status(401).end();
			return { noWebhookResponse: true };
		}
		return { workflowData: [[{ json: JSON.parse(raw.toString('utf8')) }]] };
	}
}
exports.FloorTrigger = FloorTrigger;
`;

/** Writes the floor package into `packagesFolder` and returns its folder. */
export function writeFloorPackage(packagesFolder: string): string {
	const dir = path.join(packagesFolder, FLOOR_PACKAGE);
	for (const [name, source] of [
		['FloorCreate', CREATE_SOURCE],
		['FloorTrigger', TRIGGER_SOURCE],
	] as const) {
		mkdirSync(path.join(dir, 'dist', name), { recursive: true });
		writeFileSync(path.join(dir, 'dist', name, `${name}.node.js`), source);
	}
	const manifest = {
		name: FLOOR_PACKAGE,
		version: '0.0.1',
		private: true,
		n8n: {
			n8nNodesApiVersion: 1,
			nodes: ['dist/FloorCreate/FloorCreate.node.js', 'dist/FloorTrigger/FloorTrigger.node.js'],
			credentials: [],
		},
	};
	writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
	return dir;
}
