/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Where a process spent its CPU time, from a V8 `.cpuprofile` (node --cpu-prof): self time
 * per function (the top entries) and per area of the code (n8n-core, our package, HTTP,
 * crypto, the database...), as shares of the sampled time.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	hitCount?: number;
}

export interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples?: number[];
	timeDeltas?: number[];
}

export interface ProfileEntry {
	name: string;
	selfMs: number;
	share: number;
}

export interface ProfileSummary {
	totalMs: number;
	top: ProfileEntry[];
	byArea: ProfileEntry[];
}

/** Areas by the path of the script, first match wins; the names are what the report prints. */
const AREAS: Array<[string, RegExp]> = [
	['our package (dist)', /n8n-nodes-partner-leads\/dist\//],
	['bench floor package', /n8n-nodes-bench-floor\//],
	['n8n-core', /\/n8n-core\//],
	['n8n-workflow (expressions, data)', /\/n8n-workflow\//],
	[
		'HTTP client (axios, @n8n/backend-network, http agents)',
		/\/(axios|follow-redirects|@n8n\/backend-network|agent-base|https-proxy-agent|http-proxy-agent|proxy-from-env)\//,
	],
	['database (typeorm, sqlite)', /\/(typeorm|sqlite3|@n8n\/typeorm|@n8n\/db)\//],
	['webhook and HTTP server (express)', /\/(express|body-parser|raw-body|router|finalhandler)\//],
	['n8n server (cli)', /\/n8n\/dist\//],
	['other packages', /node_modules\//],
	['Node.js internals (net, tls, crypto, streams)', /^node:|^internal\//],
];

function areaOf(frame: ProfileNode['callFrame']): string {
	if (frame.url === '') {
		if (frame.functionName === '(garbage collector)') return 'garbage collector';
		if (frame.functionName === '(idle)' || frame.functionName === '(program)')
			return 'idle / program';
		return 'V8 and native code';
	}
	return AREAS.find(([, pattern]) => pattern.test(frame.url))?.[0] ?? 'other';
}

function shortUrl(url: string): string {
	const marker = url.lastIndexOf('node_modules/');
	return marker >= 0 ? url.slice(marker + 'node_modules/'.length) : url.replace(/^file:\/\//, '');
}

/** Summarises a profile; idle time is left out of the shares (it is not work). */
export function summariseCpuProfile(profile: CpuProfile, top = 12): ProfileSummary {
	const selfUs = new Map<number, number>();
	if (profile.samples && profile.timeDeltas) {
		for (let index = 0; index < profile.samples.length; index++) {
			const id = profile.samples[index];
			selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
		}
	} else {
		const interval =
			(profile.endTime - profile.startTime) /
			Math.max(
				1,
				profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0),
			);
		for (const node of profile.nodes) selfUs.set(node.id, (node.hitCount ?? 0) * interval);
	}
	const byFunction = new Map<string, number>();
	const byArea = new Map<string, number>();
	let busyUs = 0;
	for (const node of profile.nodes) {
		const us = selfUs.get(node.id) ?? 0;
		if (us === 0) continue;
		const area = areaOf(node.callFrame);
		if (area === 'idle / program' && node.callFrame.functionName === '(idle)') continue;
		busyUs += us;
		byArea.set(area, (byArea.get(area) ?? 0) + us);
		const frame = node.callFrame;
		const name =
			`${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();
		byFunction.set(name, (byFunction.get(name) ?? 0) + us);
	}
	const entries = (map: Map<string, number>, count: number): ProfileEntry[] =>
		[...map.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, count)
			.map(([name, us]) => ({ name, selfMs: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
	return { totalMs: busyUs / 1000, top: entries(byFunction, top), byArea: entries(byArea, 20) };
}

export function summariseCpuProfileFile(file: string, top = 12): ProfileSummary {
	return summariseCpuProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
}
