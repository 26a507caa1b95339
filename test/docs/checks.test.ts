import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { links, parseDoc, slugOf, tables } from './markdown';
import { CURRENT_LINE, N8N_LINES, PREVIOUS_LINE } from './n8n-lines';
import { isPackageName, namesIn } from './names';
import {
	choiceProblems,
	defaultMatches,
	findParameters,
	nodeParameters,
	operationsOfHeading,
} from './node-parameters';
import {
	dataWords,
	EXAMPLE_DATA,
	literalsIn,
	MAX_VALUE_WORDS,
	matchQuote,
	MIN_LITERAL_SHARE,
	SHIPPED_SOURCE,
} from './source-messages';

/** The documentation test's checks, on planted mistakes: each must catch its own. */

describe('a quoted message', () => {
	const literals = literalsIn(SHIPPED_SOURCE);
	const values = dataWords(literalsIn(EXAMPLE_DATA));
	const producible = (quote: string) => {
		const match = matchQuote(quote, literals, values);
		return match.share >= MIN_LITERAL_SHARE && match.unaccounted.length === 0;
	};

	it('is found as the code builds it: literal text, values in between, "…" for a left-out part', () => {
		expect(producible('The service kept limiting the request rate of this key (HTTP 429)')).toBe(
			true,
		);
		expect(producible('Invalid lead field: Email (email) is required but has no value')).toBe(true);
		expect(producible("'Company ID' has … characters instead of 24")).toBe(true);
		expect(producible('The lead … does not exist')).toBe(true);
	});

	it('is refused with one word changed, at the start, in the middle or at the end', () => {
		expect(producible('The service keeps limiting the request rate of this key (HTTP 429)')).toBe(
			false,
		);
		expect(producible('Nothing to update: no lead field holds any value')).toBe(false);
		expect(producible('This API key has been deleted')).toBe(false);
		expect(producible('Could not connect to the Partner Referral Service')).toBe(false);
	});

	it('allows only a few words in a row that are neither literal text nor a value', () => {
		const quote = 'The lead you were looking for this morning does not exist';
		expect(matchQuote(quote, literals, values).unaccounted).not.toEqual([]);
		expect(MAX_VALUE_WORDS).toBeLessThan(4);
	});
});

describe('parameters', () => {
	const action = new PartnerLeads().description;
	const trigger = nodeParameters(new PartnerLeadsTrigger().description);

	it('are found by display name, nested, with a unit or "Name or ID" left out', () => {
		expect(findParameters(trigger, ['Options', 'Ignore Events Older Than'])).toHaveLength(1);
		expect(findParameters(trigger, ['Ignore Events Older Than (Hours)'])).toHaveLength(1);
		expect(findParameters(trigger, ['Options', 'Fetch Full Lead'])).toHaveLength(0);
		expect(findParameters(nodeParameters(action), ['Match Field'])).toHaveLength(1);
	});

	it('have their defaults read as the documentation writes them', () => {
		const [age] = findParameters(trigger, ['Ignore Events Older Than']);
		const [fetch] = findParameters(trigger, ['Fetch Full Lead']);
		expect([defaultMatches(age.property, '72 hours'), defaultMatches(age.property, '48')]).toEqual([
			true,
			false,
		]);
		expect([defaultMatches(fetch.property, 'On'), defaultMatches(fetch.property, 'Off')]).toEqual([
			true,
			false,
		]);
	});

	it('offer the choices the notes name, and no others', () => {
		const events = findParameters(trigger, ['Events']);
		expect(choiceProblems(events, '**Lead Created** (`lead/create`)')).toEqual([]);
		expect(choiceProblems(events, '**Lead Created** (`lead/created`)')).toHaveLength(1);
		expect(choiceProblems(events, '**Lead Archived**')).toHaveLength(1);
	});

	it('are in the scope of an operation heading', () => {
		expect(operationsOfHeading(action, 'Lead: Get Many')).toEqual({
			resource: 'lead',
			operations: ['getMany'],
		});
		expect(operationsOfHeading(action, 'Lead: Archive')).toBeUndefined();
	});
});

describe('names', () => {
	const text = (line: string) =>
		namesIn(line).map(({ kind, text: named, line: at }) => `${kind} ${named} ${at}`);

	it('are menu paths, Title Case names, clicked buttons and variables, each for its n8n line', () => {
		expect(
			text(
				'In n8n: **Settings > Community nodes > Install**, click **Execute workflow**, set `N8N_WEBHOOK_URL=https://x/` (`WEBHOOK_URL` on n8n 1.x; **⋯**, **Import from File...**).',
			),
		).toEqual([
			'menu path Settings > Community nodes > Install current',
			'name Execute workflow current',
			'name Import from File... previous',
			'variable N8N_WEBHOOK_URL current',
			'variable WEBHOOK_URL previous',
		]);
		expect(text('**Nothing runs twice.** **once only**, **Returns:** the lead')).toEqual([]);
	});

	it('are found in the package, or refused', () => {
		expect(isPackageName('Lead: Get Many')).toBe(true);
		expect(isPackageName('Options > Parallel Requests'.replace(' > ', ': '))).toBe(true);
		expect(isPackageName('Automatic')).toBe(true);
		expect(isPackageName('Maximum Event Age')).toBe(false);
		expect(isPackageName('Partner Organization ID', [])).toBe(true); // a Get Many filter
		expect(isPackageName('Lead: Archive')).toBe(false);
	});

	it("are found in n8n's editor only on the line they are written for", () => {
		const [current, previous] = [N8N_LINES[CURRENT_LINE], N8N_LINES[PREVIOUS_LINE]];
		expect(current.texts).toContain('Publish');
		expect(previous.texts).not.toContain('Publish');
		expect(current.variables).toContain('N8N_WEBHOOK_URL');
		expect(previous.variables).not.toContain('N8N_WEBHOOK_URL');
	});
});

describe('Markdown', () => {
	it("gives headings GitHub's anchors, numbered when repeated", () => {
		const doc = parseDoc(
			'x.md',
			'# A\n## Lead: Get Many\n## In the app (`npm run bench:n8n`)\n## Lead: Get Many\n```\n# not a heading\n```',
		);
		expect(doc.headings.map((heading) => heading.slug)).toEqual([
			'a',
			'lead-get-many',
			'in-the-app-npm-run-benchn8n',
			'lead-get-many-1',
		]);
		expect(slugOf('**Signing secrets** at rest')).toBe('signing-secrets-at-rest');
	});

	it('finds links outside code, and table cells with pipes in code', () => {
		const doc = parseDoc(
			'x.md',
			'See [`a.json`](examples/a.json) and `[no](link)`.\n\n| a | b |\n|---|---|\n| `x \\| y` | z |',
		);
		expect(links(doc).map((link) => link.target)).toEqual(['examples/a.json']);
		expect(tables(doc)[0].rows[0].cells).toEqual(['`x | y`', 'z']);
	});
});
