/**
 * Finding secrets in anything: every string reachable from a value (own properties,
 * enumerable or not, so an Error's message, stack and cause are included; Map and Set
 * entries; Buffers as text), searched for each secret in the forms a leak could take.
 */

export type SecretKind = 'client secret' | 'access token' | 'signing secret';

export interface Leak {
	where: string;
	path: string;
	kind: SecretKind;
	form: string;
	excerpt: string;
}

interface Needle {
	kind: SecretKind;
	form: string;
	text: string;
}

export class SecretRegistry {
	private readonly needles: Needle[] = [];

	private readonly values = new Set<string>();

	add(kind: SecretKind, value: string | undefined): void {
		if (!value || value.length < 8 || this.values.has(value)) return;
		this.values.add(value);
		const forms: Array<[string, string]> = [
			['as is', value],
			['base64', Buffer.from(value).toString('base64')],
			['base64url', Buffer.from(value).toString('base64url')],
			['URL-encoded', encodeURIComponent(value)],
			['JSON-escaped', JSON.stringify(value).slice(1, -1)],
		];
		// A cut-off copy ("SECRET-CANARY-1234…") is a leak too: look for a distinctive middle part.
		if (value.length >= 24) forms.push(['partial', value.slice(4, 20)]);
		const seen = new Set<string>();
		for (const [form, text] of forms) {
			if (seen.has(text)) continue;
			seen.add(text);
			this.needles.push({ kind, form, text });
		}
	}

	count(kind: SecretKind): number {
		return [
			...new Set(
				this.needles
					.filter((needle) => needle.kind === kind && needle.form === 'as is')
					.map((needle) => needle.text),
			),
		].length;
	}

	has(value: string): boolean {
		return this.values.has(value);
	}

	find(where: string, path: string, text: string): Leak[] {
		const leaks: Leak[] = [];
		for (const needle of this.needles) {
			const at = text.indexOf(needle.text);
			if (at < 0) continue;
			const excerpt = text
				.slice(Math.max(0, at - 60), at + needle.text.length + 20)
				.replace(needle.text, `<<${needle.kind}>>`);
			leaks.push({ where, path, kind: needle.kind, form: needle.form, excerpt });
		}
		return leaks;
	}
}

export interface WalkOptions {
	/**
	 * Skips the one place a signing secret may appear: `signingSecret` of the item Webhook
	 * Subscription > Create outputs (recognised by the notice only that operation adds).
	 */
	allowSubscriptionCreateSecret?: boolean;
	/** called for each skipped secret, so a test can check it was really there */
	onAllowed?: (value: string) => void;
}

const MAX_NODES = 2_000_000;

/** Every string reachable from `value`, with the path it was found at. */
export function stringsOf(value: unknown, options: WalkOptions = {}): Array<[string, string]> {
	const found: Array<[string, string]> = [];
	const seen = new WeakSet<object>();
	let visited = 0;
	const visit = (current: unknown, path: string, depth: number): void => {
		if (++visited > MAX_NODES || depth > 60) return;
		if (typeof current === 'string') {
			found.push([path, current]);
			return;
		}
		if (typeof current === 'number' || typeof current === 'boolean' || typeof current === 'bigint')
			return;
		if (current === null || current === undefined || typeof current === 'symbol') return;
		if (typeof current === 'function') return;
		if (seen.has(current)) return;
		seen.add(current);
		if (Buffer.isBuffer(current) || current instanceof Uint8Array) {
			found.push([`${path}<bytes>`, Buffer.from(current).toString('utf8')]);
			return;
		}
		if (current instanceof Map) {
			for (const [key, entry] of current) {
				visit(key, `${path}<key>`, depth + 1);
				visit(entry, `${path}.get(${String(key)})`, depth + 1);
			}
			return;
		}
		if (current instanceof Set) {
			for (const entry of current) visit(entry, `${path}<entry>`, depth + 1);
			return;
		}
		const record = current as Record<string, unknown>;
		const allowHere =
			options.allowSubscriptionCreateSecret === true &&
			typeof record.signingSecretNotice === 'string';
		for (const key of Object.getOwnPropertyNames(current)) {
			found.push([`${path}<key>`, key]);
			let entry: unknown;
			try {
				entry = record[key];
			} catch {
				continue;
			}
			if (allowHere && key === 'signingSecret' && typeof entry === 'string') {
				options.onAllowed?.(entry);
				continue;
			}
			visit(entry, `${path}.${key}`, depth + 1);
		}
	};
	visit(value, '$', 0);
	return found;
}

/** Every leak of a registered secret in `value`. */
export function leaksIn(
	registry: SecretRegistry,
	where: string,
	value: unknown,
	options?: WalkOptions,
): Leak[] {
	return stringsOf(value, options).flatMap(([path, text]) => registry.find(where, path, text));
}

export function describeLeaks(leaks: Leak[]): string {
	return leaks
		.slice(0, 20)
		.map(
			(leak) => `${leak.kind} (${leak.form}) in ${leak.where} at ${leak.path}: …${leak.excerpt}…`,
		)
		.join('\n');
}
