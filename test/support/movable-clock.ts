/**
 * Time moved by hand instead of waited for: Date.now, which the node, the credential and the
 * simulator's token expiry all read, runs ahead by what `advance` added (jest tests only).
 */
export function movableClock(): { advance(ms: number): void; restore(): void } {
	const realNow = Date.now.bind(Date);
	let aheadMs = 0;
	const now = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + aheadMs);
	return {
		advance: (ms) => {
			aheadMs += Math.max(0, ms);
		},
		restore: () => now.mockRestore(),
	};
}
