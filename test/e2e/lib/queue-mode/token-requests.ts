/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Which n8n process asked the simulator for each token: the simulator reports the client
 * port of a token request while its connection is open, and Linux's /proc says which process
 * holds that socket. Every n8n process of the cluster leads its own process group (it was
 * started detached), so a request from a child of it counts for it too.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The inode of the loopback TCP socket whose local port is `clientPort`, connected to `serverPort`. */
function socketInode(clientPort: number, serverPort: number): string | undefined {
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let lines: string[];
		try {
			lines = readFileSync(table, 'utf8').split('\n').slice(1);
		} catch {
			continue;
		}
		for (const line of lines) {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			const fields = line.trim().split(/\s+/);
			const local = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16);
			const remote = Number.parseInt(fields[2]?.split(':')[1] ?? '', 16);
			if (local === clientPort && remote === serverPort && fields[9]) return fields[9];
		}
	}
	return undefined;
}

/** The process group of a pid (field 5 of /proc/<pid>/stat, after the parenthesised name). */
function processGroup(pid: string): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
	} catch {
		return undefined;
	}
}

function holdsSocket(pid: string, inode: string): boolean {
	let fds: string[];
	try {
		fds = readdirSync(`/proc/${pid}/fd`);
	} catch {
		return false;
	}
	return fds.some((fd) => {
		try {
			return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
		} catch {
			return false;
		}
	});
}

/** The group leader (one of `groups`) whose group holds the client end of the connection. */
function groupHoldingPort(
	clientPort: number,
	serverPort: number,
	groups: Set<number>,
): number | undefined {
	const inode = socketInode(clientPort, serverPort);
	if (inode === undefined) return undefined;
	// The n8n process itself asks (nodes run in it): its own fds first. The scan of every process
	// below runs synchronously in the runner: while it reads the /proc entries of a process that
	// another scenario is killing, the whole runner waits (CI once saw a stall of a minute there).
	for (const leader of groups) if (holdsSocket(String(leader), inode)) return leader;
	for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
		const group = processGroup(pid);
		if (group !== undefined && groups.has(group) && holdsSocket(pid, inode)) return group;
	}
	return undefined;
}

/** Counts token requests per n8n process (by name), from the simulator's `onTokenRequest`. */
export class TokenRequestsByProcess {
	private counts = new Map<string, number>();

	private processes: Array<{ name: string; pid(): number | undefined }> = [];

	/** the simulator's port, known once it listens */
	serverPort = 0;

	/** The cluster's processes, once started (their pids may change with restarts). */
	watch(processes: Array<{ name: string; pid(): number | undefined }>): void {
		this.processes = processes;
	}

	/** For the simulator's `onTokenRequest`: synchronous, while the connection is open. */
	readonly record = (client: { port: number }): void => {
		const byGroup = new Map<number, string>();
		for (const process of this.processes) {
			const pid = process.pid();
			if (pid !== undefined) byGroup.set(pid, process.name);
		}
		const group = groupHoldingPort(client.port, this.serverPort, new Set(byGroup.keys()));
		const name = (group !== undefined && byGroup.get(group)) || 'another process';
		this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
	};

	/** name → token requests since the last reset */
	snapshot(): Record<string, number> {
		return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
	}

	reset(): void {
		this.counts.clear();
	}
}
