import type {
	RetryDecision,
	RetryFailure,
	RetrySettings,
	RetryState,
} from '../../nodes/shared/transport/retry-policy';
import { decideRetry, NO_RETRIES_YET } from '../../nodes/shared/transport/retry-policy';

/**
 * The retry decision, case by case, without a service. The policy's figures are written out
 * here (3 retries of a 5xx, 12 of a 429, 60 s longest single wait, backoff bases 300 and
 * 500 ms) rather than read from RETRY_POLICY, so a change of policy shows up as a failing row.
 * Math.random is pinned to 1, so a backoff is its ceiling: base * 2^attempt; n8n's clock
 * (Date.now) to 2026-01-01T00:00:00Z, the time an HTTP-date Retry-After counts from.
 */
const NOW_MS = Date.UTC(2026, 0, 1);
beforeEach(() => {
	jest.spyOn(Math, 'random').mockReturnValue(1);
	jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
});
afterEach(() => jest.restoreAllMocks());

const settings: RetrySettings = {
	repeatable: true,
	rateLimitBudgetMs: 120_000,
	freshTokenRefusedInRun: false,
};
const state = (changes: Partial<RetryState> = {}): RetryState => ({
	...NO_RETRIES_YET,
	...changes,
});
/** The state after a first 429 retried after waitMs. */
const waited = (waitMs: number): RetryState =>
	state({ rateLimitRetries: 1, rateLimitWaitedMs: waitMs });

type Expected = Pick<RetryDecision, 'next' | 'waitMs'> & Partial<RetryDecision>;
const rows: Array<[string, RetryFailure, RetryState, Partial<RetrySettings>, Expected]> = [
	[
		'a 503, first time: back off 300 ms',
		{ status: 503 },
		state(),
		{},
		{ next: 'retry', waitMs: 300, serverError: true, state: state({ serverErrorRetries: 1 }) },
	],
	[
		'a 500, third time: back off 300 * 2^2',
		{ status: 500 },
		state({ serverErrorRetries: 2 }),
		{},
		{
			next: 'retry',
			waitMs: 1200,
			serverError: true,
			state: state({ serverErrorRetries: 3 }),
		},
	],
	[
		'a 502 after 3 retries: give up',
		{ status: 502 },
		state({ serverErrorRetries: 3 }),
		{},
		{ next: 'giveUp', waitMs: 0, serverError: true },
	],
	[
		'a 5xx on a request not safe to repeat: give up at once',
		{ status: 503 },
		state(),
		{ repeatable: false },
		{ next: 'giveUp', waitMs: 0, serverError: true },
	],
	[
		'a lost connection: back off as for a 5xx',
		{},
		state(),
		{},
		{ next: 'retry', waitMs: 300, state: state({ serverErrorRetries: 1 }) },
	],
	[
		'a lost connection on a POST: give up',
		{},
		state(),
		{ repeatable: false },
		{ next: 'giveUp', waitMs: 0 },
	],
	[
		'a credential problem: read the credential again (a new key may have been saved since)',
		{ credentialProblem: 'This API key has been revoked' },
		state(),
		{},
		{ next: 'readCredentialAgain', waitMs: 0, state: state({ credentialReadAgain: true }) },
	],
	[
		'a credential problem with the credential read again: give up',
		{ credentialProblem: 'This API key has been revoked' },
		state({ credentialReadAgain: true }),
		{},
		{ next: 'giveUp', waitMs: 0 },
	],
	[
		'a token issuer failing for a while: give up, the key is not refused',
		{ credentialProblem: 'The token issuer kept answering 503', credentialProblemTemporary: true },
		state(),
		{},
		{ next: 'giveUp', waitMs: 0 },
	],
	[
		'a 400: give up',
		{ status: 400 },
		state(),
		{},
		{ next: 'giveUp', waitMs: 0, serverError: false },
	],
	['a 404: give up', { status: 404 }, state(), {}, { next: 'giveUp', waitMs: 0 }],
	[
		'a 401 (n8n renewed and repeated it already): read the credential again',
		{ status: 401 },
		state(),
		{},
		{ next: 'readCredentialAgain', waitMs: 0, state: state({ credentialReadAgain: true }) },
	],
	[
		'a 401 with the credential read again: give up',
		{ status: 401 },
		state({ credentialReadAgain: true }),
		{},
		{ next: 'giveUp', waitMs: 0 },
	],
	[
		'a first 403: renew the token with the credential read again, no wait',
		{ status: 403 },
		state(),
		{},
		{
			next: 'renewToken',
			waitMs: 0,
			freshTokenRefused: false,
			state: state({ renewToken: true, credentialReadAgain: true }),
		},
	],
	[
		'a 403 with a renewed token: give up, the token is not the problem',
		{ status: 403 },
		state({ renewToken: true, credentialReadAgain: true }),
		{},
		{ next: 'giveUp', waitMs: 0, freshTokenRefused: true },
	],
	[
		'a 403 in a run where a fresh token was refused: read the credential again, no renewal',
		{ status: 403 },
		state(),
		{ freshTokenRefusedInRun: true },
		{
			next: 'readCredentialAgain',
			waitMs: 0,
			freshTokenRefused: false,
			state: state({ credentialReadAgain: true }),
		},
	],
	[
		'a 403 in such a run with the credential read again: give up',
		{ status: 403 },
		state({ credentialReadAgain: true }),
		{ freshTokenRefusedInRun: true },
		{ next: 'giveUp', waitMs: 0, freshTokenRefused: false },
	],
	[
		'a 429 with Retry-After: 2: wait 2 s',
		{ status: 429, retryAfter: '2' },
		state(),
		{},
		{
			next: 'retry',
			waitMs: 2000,
			rateLimitedMs: 2000,
			state: state({ rateLimitRetries: 1, rateLimitWaitedMs: 2000 }),
		},
	],
	[
		'a 429 with Retry-After: 0: retry at once',
		{ status: 429, retryAfter: '0' },
		state(),
		{},
		{ next: 'retry', waitMs: 0, rateLimitedMs: 0, state: waited(0) },
	],
	[
		'a 429 with an HTTP date 5 s ahead: wait 5 s',
		{ status: 429, retryAfter: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toUTCString() },
		state(),
		{},
		{ next: 'retry', waitMs: 5000, rateLimitedMs: 5000, state: waited(5000) },
	],
	[
		'a 429 without Retry-After, third time: back off 500 * 2^2',
		{ status: 429 },
		state({ rateLimitRetries: 2 }),
		{},
		{
			next: 'retry',
			waitMs: 2000,
			rateLimitedMs: 2000,
			state: state({ rateLimitRetries: 3, rateLimitWaitedMs: 2000 }),
		},
	],
	[
		'a 429 asking for 10 minutes: wait the longest single wait, 60 s',
		{ status: 429, retryAfter: '600' },
		state(),
		{},
		{ next: 'retry', waitMs: 60_000, rateLimitedMs: 60_000, state: waited(60_000) },
	],
	[
		'a 429 past the budget: give up, the wait still told',
		{ status: 429, retryAfter: '30' },
		state({ rateLimitWaitedMs: 100_000 }),
		{},
		{ next: 'giveUp', waitMs: 0, rateLimitedMs: 30_000 },
	],
	[
		'a 429 exactly at the budget: retry',
		{ status: 429, retryAfter: '20' },
		state({ rateLimitWaitedMs: 100_000 }),
		{},
		{
			next: 'retry',
			waitMs: 20_000,
			rateLimitedMs: 20_000,
			state: state({ rateLimitRetries: 1, rateLimitWaitedMs: 120_000 }),
		},
	],
	[
		'a 429 after 12 retries: give up',
		{ status: 429, retryAfter: '1' },
		state({ rateLimitRetries: 12 }),
		{},
		{ next: 'giveUp', waitMs: 0, rateLimitedMs: 1000 },
	],
	[
		"a 429 within a caller's smaller budget: retry",
		{ status: 429, retryAfter: '1' },
		state(),
		{ rateLimitBudgetMs: 1000 },
		{ next: 'retry', waitMs: 1000, rateLimitedMs: 1000, state: waited(1000) },
	],
	[
		"a 429 past a caller's smaller budget: give up",
		{ status: 429, retryAfter: '2' },
		state(),
		{ rateLimitBudgetMs: 1000 },
		{ next: 'giveUp', waitMs: 0, rateLimitedMs: 2000 },
	],
	[
		'a 429 on a POST: retried (nothing was applied)',
		{ status: 429, retryAfter: '1' },
		state(),
		{ repeatable: false },
		{ next: 'retry', waitMs: 1000, rateLimitedMs: 1000, state: waited(1000) },
	],
	[
		'a 5xx after a renewal keeps renewing',
		{ status: 503 },
		state({ renewToken: true, credentialReadAgain: true }),
		{},
		{
			next: 'retry',
			waitMs: 300,
			serverError: true,
			state: state({ renewToken: true, credentialReadAgain: true, serverErrorRetries: 1 }),
		},
	],
];

describe('the retry decision', () => {
	it.each(rows)('%s', (_title, failure, before, changes, expected) => {
		// every field: what a row leaves out is the decision's default (no wait told, state unchanged)
		expect(decideRetry(failure, before, { ...settings, ...changes })).toEqual({
			serverError: false,
			freshTokenRefused: false,
			state: before,
			...expected,
		});
	});

	it('backs off a random time up to the ceiling (full jitter)', () => {
		jest.spyOn(Math, 'random').mockReturnValue(0.25);
		const decision = decideRetry({ status: 503 }, state({ serverErrorRetries: 1 }), settings);
		expect(decision).toEqual({
			next: 'retry',
			waitMs: 150,
			serverError: true,
			freshTokenRefused: false,
			state: state({ serverErrorRetries: 2 }),
		});
	});

	it('does not change the state it was given', () => {
		const before = state();
		decideRetry({ status: 429, retryAfter: '1' }, before, settings);
		expect(before).toEqual(NO_RETRIES_YET);
	});
});
