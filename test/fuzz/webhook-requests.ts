/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { createHmac } from 'node:crypto';
import http from 'node:http';

import fc from 'fast-check';

/**
 * Raw HTTP requests to the trigger's webhook, built from parts so a property can say
 * exactly what was sent (header lines repeated or in another letter case, any body bytes,
 * any content type), and an oracle that decides independently of the node's code whether
 * a request is an authentic delivery.
 */

export type Topic = 'lead/create' | 'lead/update' | 'lead/delete';

export const TOPICS: Topic[] = ['lead/create', 'lead/update', 'lead/delete'];

export interface RawRequest {
	method: string;
	body: Buffer;
	/** header lines in order; a name may repeat and be in any letter case */
	headers: Array<[string, string]>;
	/** why the generator made it, for counterexamples */
	label: string;
}

export interface RawAnswer {
	status: number;
	body: string;
}

export function hmacHex(secret: string, data: string | Buffer): string {
	return createHmac('sha256', secret).update(data).digest('hex');
}

/** Sends exactly these header lines and bytes (no automatic content-type). */
export function send(url: string, request: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const target = new URL(url);
		const req = http.request({
			host: target.hostname,
			port: target.port,
			path: target.pathname,
			method: request.method,
			agent: false,
			timeout: timeoutMs,
		});
		const grouped = new Map<string, { name: string; values: string[] }>();
		for (const [name, value] of request.headers) {
			const key = name.toLowerCase();
			const entry = grouped.get(key) ?? { name, values: [] };
			entry.values.push(value);
			grouped.set(key, entry);
		}
		// An array value sends one header line per value (a repeated header).
		for (const { name, values } of grouped.values())
			req.setHeader(name, values.length === 1 ? values[0] : values);
		req.setHeader('content-length', String(request.body.length));
		req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
		req.on('error', reject);
		req.on('response', (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () =>
				resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
			);
			res.on('error', reject);
		});
		req.end(request.body);
	});
}

/** The values of a header as the receiving Node server sees them: repeated lines joined with ", ". */
export function receivedHeader(request: RawRequest, name: string): string | undefined {
	const values = request.headers
		.filter(([key]) => key.toLowerCase() === name)
		.map(([, value]) => value);
	return values.length === 0 ? undefined : values.join(', ');
}

function signatureMatches(presented: string | undefined, expectedHex: string): boolean {
	// Whitespace around a header value is not part of it (HTTP strips it).
	const value = presented?.trim();
	return (
		value !== undefined && /^[0-9a-fA-F]{64}$/.test(value) && value.toLowerCase() === expectedHex
	);
}

export interface EventKey {
	id: string;
	topic: Topic;
	timestamp: string;
}

export function keyOf(event: EventKey): string {
	return `${event.topic} ${event.id} ${event.timestamp}`;
}

function eventOf(body: Buffer): EventKey | undefined {
	try {
		const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
		const { id, topic, timestamp } = parsed ?? {};
		if (typeof id !== 'string' || typeof timestamp !== 'string' || !TOPICS.includes(topic as Topic))
			return undefined;
		return { id, topic: topic as Topic, timestamp };
	} catch {
		return undefined;
	}
}

/**
 * The event a request may start an execution for, or undefined when nothing vouches for
 * it: a v2 signature over the exact bytes by the secret of the body's own topic, or (only
 * when the option is on and no v2 header was sent) a legacy signature over id, timestamp,
 * topic. Upper bound only: the node may still refuse (e.g. an id of 10 000 characters).
 */
export function authenticEvent(
	request: RawRequest,
	secrets: Partial<Record<Topic, string>>,
	acceptLegacy: boolean,
): EventKey | undefined {
	if (request.method !== 'POST') return undefined;
	const event = eventOf(request.body);
	if (!event) return undefined;
	const secret = secrets[event.topic];
	if (!secret) return undefined;
	const v2 = receivedHeader(request, 'x-svc-signature-v2');
	if (v2 !== undefined)
		return signatureMatches(v2, hmacHex(secret, request.body)) ? event : undefined;
	if (!acceptLegacy) return undefined;
	const legacy = receivedHeader(request, 'x-svc-signature');
	const signed = JSON.stringify({ id: event.id, timestamp: event.timestamp, topic: event.topic });
	return signatureMatches(legacy, hmacHex(secret, signed)) ? event : undefined;
}

/**
 * Whether the request's v2 signature is valid over its exact bytes with one of the trigger's
 * secrets, whatever the bytes say: the service's own body, answered 200 even when it is no
 * lead event (a retry would carry the same bytes), and run only when authenticEvent holds.
 */
export function signedByTrigger(
	request: RawRequest,
	secrets: Partial<Record<Topic, string>>,
): boolean {
	const v2 = receivedHeader(request, 'x-svc-signature-v2');
	return (
		request.method === 'POST' &&
		v2 !== undefined &&
		Object.values(secrets).some((secret) => signatureMatches(v2, hmacHex(secret, request.body)))
	);
}

/** Within the generous bounds the trigger documents for what it fetches and remembers. */
export function withinBounds(event: EventKey): boolean {
	return (
		event.id.length > 0 &&
		event.id.length <= 200 &&
		event.timestamp.length > 0 &&
		event.timestamp.length <= 64
	);
}

// ---- generators ----

const idArb = fc.oneof(
	{ weight: 4, arbitrary: fc.stringMatching(/^[0-9a-f]{24}$/) },
	{ weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			'',
			'__proto__',
			'constructor',
			'../../etc/passwd',
			'a/b?c#d',
			'x'.repeat(201),
			'x'.repeat(200),
		),
	},
);

const DAY_MS = 24 * 3600_000;
/** Fuzzing starts now: recent times are inside the trigger's default 72 h window, the others well outside. */
const FUZZ_NOW = Date.now();
const isoDateArb = (min: number, max: number) =>
	fc
		.date({ min: new Date(min), max: new Date(max), noInvalidDate: true })
		.map((date) => date.toISOString());

const timestampArb = fc.oneof(
	{ weight: 4, arbitrary: isoDateArb(FUZZ_NOW - 70 * 3600_000, FUZZ_NOW + 60_000) },
	{ weight: 1, arbitrary: isoDateArb(Date.parse('2020-01-01'), FUZZ_NOW - 4 * DAY_MS) },
	{ weight: 1, arbitrary: isoDateArb(FUZZ_NOW + DAY_MS, Date.parse('2035-01-01')) },
	{ weight: 1, arbitrary: fc.constantFrom('', 'yesterday', '9'.repeat(65), '2024-05-01') },
);

export const eventArb: fc.Arbitrary<{ id: string; topic: string; timestamp: string }> = fc.record({
	id: idArb,
	topic: fc.oneof(
		{ weight: 6, arbitrary: fc.constantFrom<string>(...TOPICS) },
		{ weight: 1, arbitrary: fc.constantFrom('payment/create', 'LEAD/CREATE', '', 'lead/*') },
	),
	timestamp: timestampArb,
});

const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
	{ weight: 6, arbitrary: fc.constant('application/json') },
	{
		weight: 3,
		arbitrary: fc.constantFrom(
			undefined,
			'APPLICATION/JSON',
			'application/json; charset=utf-8',
			'application/json; charset=utf-16le',
			'application/json; charset=latin1',
			'text/plain',
			'application/x-www-form-urlencoded',
			'multipart/form-data; boundary=x',
			'application/octet-stream',
			'',
		),
	},
);

function mixedCase(name: string, pattern: number): string {
	return [...name]
		.map((char, index) => ((pattern >> index % 16) & 1 ? char.toUpperCase() : char))
		.join('');
}

/**
 * How a delivery is signed (or not). `secretOf` names whose secret signs: the body's own
 * topic, another subscribed topic, or a stranger.
 */
const signingArb = fc.record({
	v2: fc.oneof(
		{ weight: 4, arbitrary: fc.constant('valid') },
		{
			weight: 6,
			arbitrary: fc.constantFrom(
				'valid-upper',
				'missing',
				'foreign',
				'other-topic',
				'truncated',
				'extended',
				'non-hex',
				'empty',
				'duplicated',
				'duplicated-mixed',
				'padded',
			),
		},
	),
	legacy: fc.constantFrom('valid', 'missing', 'foreign', 'garbage', 'duplicated'),
	nameCase: fc.nat(0xffff),
});

export type Signing = typeof signingArb extends fc.Arbitrary<infer T> ? T : never;

/** The bytes of a delivery body: the service's exact serialisation, or a variation of it. */
const bodyShapeArb = fc.constantFrom(
	'service',
	'service',
	'service',
	'reordered',
	'spaced',
	'extra-field',
	'bom',
	'trailing-garbage',
	'array',
	'nested',
);

function bodyBytes(event: { id: string; topic: string; timestamp: string }, shape: string): Buffer {
	switch (shape) {
		case 'reordered':
			return Buffer.from(
				JSON.stringify({ timestamp: event.timestamp, topic: event.topic, id: event.id }),
			);
		case 'spaced':
			return Buffer.from(JSON.stringify(event, null, 2));
		case 'extra-field':
			return Buffer.from(JSON.stringify({ ...event, status: 'active', __proto__x: 1 }));
		case 'bom':
			return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(event))]);
		case 'trailing-garbage':
			return Buffer.from(`${JSON.stringify(event)}}`);
		case 'array':
			return Buffer.from(JSON.stringify([event]));
		case 'nested':
			return Buffer.from(JSON.stringify({ data: event }));
		default:
			return Buffer.from(
				JSON.stringify({ id: event.id, topic: event.topic, timestamp: event.timestamp }),
			);
	}
}

export interface SigningKeys {
	/** signing secrets the trigger stored, by topic */
	secrets: Partial<Record<Topic, string>>;
}

/** A delivery with valid or broken signatures, built once the stored secrets are known. */
export function signedRequestArb(keys: SigningKeys): fc.Arbitrary<RawRequest> {
	return fc
		.record({
			event: eventArb,
			shape: bodyShapeArb,
			signing: signingArb,
			contentType: contentTypeArb,
			mutateAfterSigning: fc.constantFrom(false, false, false, false, true),
		})
		.map(({ event, shape, signing, contentType, mutateAfterSigning }) => {
			const body = bodyBytes(event, shape);
			const topics = Object.keys(keys.secrets) as Topic[];
			const own = keys.secrets[event.topic as Topic] ?? 'no-secret-for-this-topic';
			const other =
				keys.secrets[topics.find((topic) => topic !== event.topic) ?? 'lead/create'] ?? 'x';
			const v2For = (secret: string) => hmacHex(secret, body);
			const legacyFor = (secret: string) =>
				hmacHex(
					secret,
					JSON.stringify({ id: event.id, timestamp: event.timestamp, topic: event.topic }),
				);
			const v2Name = mixedCase('x-svc-signature-v2', signing.nameCase);
			const legacyName = mixedCase('x-svc-signature', signing.nameCase >> 3);
			const headers: Array<[string, string]> = [['user-agent', 'svc-webhooks/fuzz']];
			if (contentType !== undefined) headers.push(['content-type', contentType]);
			switch (signing.v2) {
				case 'valid':
					headers.push([v2Name, v2For(own)]);
					break;
				case 'valid-upper':
					headers.push([v2Name, v2For(own).toUpperCase()]);
					break;
				case 'padded':
					headers.push([v2Name, `  ${v2For(own)}\t`]);
					break;
				case 'foreign':
					headers.push([v2Name, v2For('whsec_stranger')]);
					break;
				case 'other-topic':
					headers.push([v2Name, v2For(other)]);
					break;
				case 'truncated':
					headers.push([v2Name, v2For(own).slice(0, 63)]);
					break;
				case 'extended':
					headers.push([v2Name, `${v2For(own)}0`]);
					break;
				case 'non-hex':
					headers.push([v2Name, `${v2For(own).slice(0, 63)}g`]);
					break;
				case 'empty':
					headers.push([v2Name, '']);
					break;
				case 'duplicated':
					headers.push([v2Name, v2For(own)], [v2Name, v2For(own)]);
					break;
				case 'duplicated-mixed':
					headers.push([v2Name, v2For('whsec_stranger')], [v2Name, v2For(own)]);
					break;
				default:
					break;
			}
			switch (signing.legacy) {
				case 'valid':
					headers.push([legacyName, legacyFor(own)]);
					break;
				case 'foreign':
					headers.push([legacyName, legacyFor('whsec_stranger')]);
					break;
				case 'garbage':
					headers.push([legacyName, 'sha256=zz']);
					break;
				case 'duplicated':
					headers.push([legacyName, legacyFor(own)], [legacyName, legacyFor(own)]);
					break;
				default:
					break;
			}
			const sent = mutateAfterSigning && body.length > 0 ? Buffer.from(body) : body;
			if (sent !== body) sent[sent.length - 1] ^= 0x01;
			return {
				method: 'POST',
				body: sent,
				headers,
				label: `${shape}/${signing.v2}/${signing.legacy}/${contentType ?? 'none'}${mutateAfterSigning ? '/mutated' : ''}`,
			};
		});
}

/** Bytes and headers with no relation to a delivery at all. */
export const garbageRequestArb: fc.Arbitrary<RawRequest> = fc
	.record({
		method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'PUT', 'GET', 'DELETE'),
		body: fc.oneof(
			{
				weight: 3,
				arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
			},
			{
				weight: 3,
				arbitrary: fc
					.jsonValue({ maxDepth: 4 })
					.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
			},
			{
				weight: 2,
				arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text)),
			},
			{
				weight: 1,
				arbitrary: fc.constantFrom(
					Buffer.alloc(0),
					Buffer.from('{'),
					Buffer.from(
						'{"__proto__":{"polluted":true},"id":"x","topic":"lead/create","timestamp":"t"}',
					),
					Buffer.from('{"constructor":{"prototype":{"polluted":true}}}'),
				),
			},
			{
				weight: 1,
				arbitrary: fc
					.integer({ min: 64 * 1024, max: 1024 * 1024 })
					.map((size) => Buffer.alloc(size, 0x7b)),
			},
		),
		contentType: contentTypeArb,
		v2: fc.option(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 80 })), {
			nil: undefined,
		}),
		legacy: fc.option(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 80 })), {
			nil: undefined,
		}),
	})
	.map(({ method, body, contentType, v2, legacy }) => {
		const headers: Array<[string, string]> = [];
		if (contentType !== undefined) headers.push(['content-type', contentType]);
		// Header values cannot hold control characters or non-Latin-1 text: keep what HTTP allows.
		const clean = (value: string) => value.replace(/[^\x20-\x7e]/g, '');
		if (v2 !== undefined) headers.push(['x-svc-signature-v2', clean(v2)]);
		if (legacy !== undefined) headers.push(['x-svc-signature', clean(legacy)]);
		return { method, body, headers, label: `garbage/${method}/${body.length}B` };
	});
