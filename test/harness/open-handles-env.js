// The test environment of every suite: jest's node environment, plus a guard that fails the
// suite when something it started still holds the process after its last afterAll: a
// listening server, a socket, a child process or a pending timer. Such a leftover keeps the
// jest worker alive at the end of the run ("A worker process has failed to exit gracefully").
const { TestEnvironment } = require('jest-environment-node');
const { createHook } = require('node:async_hooks');

/** Resources that keep Node's event loop alive while referenced. */
const HOLDING = new Set([
	'Timeout',
	'Immediate',
	'TCPWRAP',
	'TCPSERVERWRAP',
	'PIPEWRAP',
	'PIPESERVERWRAP',
	'PROCESSWRAP',
	'UDPWRAP',
	'FSEVENTWRAP',
	'STATWATCHER',
]);

/** Closing a server or socket completes on a later turn of the event loop: wait that long. */
const CLOSE_GRACE_MS = 1000;
const POLL_MS = 10;

class OpenHandlesEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.created = new Map();
	}

	async setup() {
		await super.setup();
		const created = this.created;
		this.hook = createHook({
			init(asyncId, type, _triggerId, resource) {
				if (!HOLDING.has(type)) return;
				const origin = {};
				Error.captureStackTrace(origin);
				created.set(asyncId, { type, resource: new WeakRef(resource), origin });
			},
			destroy(asyncId) {
				created.delete(asyncId);
			},
		});
		this.hook.enable();
	}

	async teardown() {
		this.hook.disable();
		const deadline = Date.now() + CLOSE_GRACE_MS;
		let open = this.stillOpen();
		while (open.length > 0 && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, POLL_MS));
			open = this.stillOpen();
		}
		this.created.clear();
		await super.teardown();
		if (open.length > 0) {
			throw new Error(
				`The suite left ${open.length} resource(s) holding the process ${CLOSE_GRACE_MS} ms after it ended; close them in afterAll/afterEach:\n${open.join('\n')}`,
			);
		}
	}

	stillOpen() {
		const open = [];
		for (const { type, resource, origin } of this.created.values()) {
			const live = resource.deref();
			if (!live || live._destroyed) continue;
			if (typeof live.hasRef === 'function' && !live.hasRef()) continue;
			const stack = String(origin.stack)
				.split('\n')
				.filter((frame) => frame.includes(' at ') && !frame.includes('open-handles-env'))
				.map((frame) => frame.replace(/^\s*at /, '    from '));
			const ours = stack.filter((frame) => !/node:|\/node_modules\//.test(frame));
			const frames = (ours.length > 0 ? ours : stack).slice(0, 4);
			open.push(`- ${type} opened at\n${frames.join('\n')}`);
		}
		return open;
	}
}

module.exports = OpenHandlesEnvironment;
