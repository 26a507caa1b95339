/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A service "milliseconds away" on loopback: clients connect with TLS to 127.0.0.1:<port>,
 * every byte is held for `delayMs` in each direction *before* TLS, so a new handshake costs
 * its round trips as on a real network and a kept-alive connection does not; the decrypted
 * stream goes on, undelayed, to a plain HTTP upstream (the simulator, the token issuer).
 *
 *   client ──TCP──▶ outer (delay both ways) ──TCP──▶ inner TLS server ──TCP──▶ upstream
 */
import net from 'node:net';
import tls from 'node:tls';

export interface LatencyProxyOptions {
	upstreamPort: number;
	/** Delay added to each direction (one-way); the round trip costs twice this. */
	delayMs: number;
	key: string;
	cert: string;
}

export interface LatencyProxy {
	port: number;
	url: string;
	/** TLS handshakes completed: tells a reused connection from a new one. */
	handshakes(): number;
	close(): Promise<void>;
}

/** Forwards chunks from one socket to another, each one `delayMs` after it arrived, in order. */
function delayedPipe(from: net.Socket, to: net.Socket, delayMs: number): void {
	from.on('data', (chunk: Buffer) => {
		// equal delays keep arrival order: Node runs timers of the same duration first in, first out
		if (delayMs === 0) to.write(chunk);
		else setTimeout(() => to.destroyed || to.write(chunk), delayMs);
	});
	from.on('end', () => setTimeout(() => to.end(), delayMs));
	from.on('error', () => to.destroy());
	from.on('close', () => setTimeout(() => to.destroy(), delayMs));
}

function listen(server: net.Server): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
	});
}

export async function startLatencyProxy(options: LatencyProxyOptions): Promise<LatencyProxy> {
	const sockets = new Set<net.Socket>();
	const keep = (socket: net.Socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
		return socket;
	};
	let handshakes = 0;

	const inner = tls.createServer({ key: options.key, cert: options.cert }, (secure) => {
		handshakes += 1;
		keep(secure);
		const upstream = keep(net.connect(options.upstreamPort, '127.0.0.1'));
		secure.pipe(upstream).pipe(secure);
		secure.on('error', () => upstream.destroy());
		upstream.on('error', () => secure.destroy());
	});
	inner.on('tlsClientError', () => undefined); // a client that gives up mid-handshake is not ours to report
	const innerPort = await listen(inner);

	const outer = net.createServer((client) => {
		keep(client);
		const toInner = keep(net.connect(innerPort, '127.0.0.1'));
		delayedPipe(client, toInner, options.delayMs);
		delayedPipe(toInner, client, options.delayMs);
	});
	const port = await listen(outer);

	const closeServer = (server: net.Server) =>
		new Promise<void>((resolve) => server.close(() => resolve()));
	return {
		port,
		url: `https://127.0.0.1:${port}`,
		handshakes: () => handshakes,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await Promise.all([closeServer(outer), closeServer(inner)]);
		},
	};
}
