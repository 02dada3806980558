import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/*
 * The CPU time each tier of the scale-out deployment spends (issue 23's model: how many signatures/s N nodes and W
 * workers serve with their own cores, and which tier saturates first), read from /proc for the processes this
 * process started (its descendants), and where they may run (taskset) for the pinned runs.
 */

export const TIERS = ['API nodes', 'workers', 'MariaDB', 'Redis', 'nginx', 'S3 (s3rver)', 'load generator'] as const;
export type Tier = (typeof TIERS)[number];

interface ProcessStat {
  pid: number;
  ppid: number;
  /** user + system CPU seconds of the process (all its threads). */
  cpu: number;
}

let ticks: number | null = null;
function clockTicks(): number {
  if (ticks === null) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    ticks = Number(out.stdout.trim()) || 100;
  }
  return ticks;
}

function statOf(pid: number): ProcessStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields that matter come after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / clockTicks() };
  } catch {
    return null; // gone meanwhile
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** This process's descendants, alive now. */
export function descendants(root = process.pid): ProcessStat[] {
  const all: ProcessStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) all.push(stat);
  }
  const below = new Set([root]);
  const out: ProcessStat[] = [];
  // Parents are listed before their children only mostly: repeat until nothing new is found.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (!below.has(p.pid) && below.has(p.ppid)) {
        below.add(p.pid);
        out.push(p);
        grew = true;
      }
  }
  return out;
}

function tierOf(pid: number): Tier | null {
  const command = commandOf(pid);
  if (/api\/dist\/main\.js/.test(command)) return 'API nodes';
  if (/api\/dist\/worker\.js/.test(command)) return 'workers';
  if (/(^|\/)(mariadbd|mysqld)( |$)/.test(command)) return 'MariaDB';
  if (/redis-server/.test(command)) return 'Redis';
  if (/^nginx/.test(command)) return 'nginx';
  if (/s3rver-child\.js/.test(command)) return 'S3 (s3rver)';
  return null;
}

/** CPU seconds used so far by each tier (the processes alive now) and by this process (the load generator). */
export function cpuByTier(): Map<Tier, number> {
  const out = new Map<Tier, number>(TIERS.map((t) => [t, 0]));
  for (const p of descendants()) {
    const tier = tierOf(p.pid);
    if (tier) out.set(tier, out.get(tier)! + p.cpu);
  }
  const self = process.cpuUsage();
  out.set('load generator', (self.user + self.system) / 1e6);
  return out;
}

/** CPU milliseconds per signature of each tier between two readings. */
export function perSignature(before: Map<Tier, number>, after: Map<Tier, number>, signatures: number) {
  return Object.fromEntries(
    TIERS.map((t) => [t, Number(((1000 * ((after.get(t) ?? 0) - (before.get(t) ?? 0))) / signatures).toFixed(2))]),
  ) as Record<Tier, number>;
}

function taskset(pid: number, cpus: string): void {
  const res = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  // A process that ended meanwhile (a short-lived helper) is no failure.
  if (res.status !== 0 && statOf(pid))
    throw new Error(`taskset -a -p -c ${cpus} ${pid}: ${res.stderr || res.error?.message}`);
}

/** Lets `pid` and its descendants (all their threads) run only on `cpus` (a taskset list, e.g. "0" or "0-1"). */
export function pin(pid: number, cpus: string): void {
  for (const p of [pid, ...descendants(pid).map((d) => d.pid)]) taskset(p, cpus);
}

/** Every descendant of this process outside the API nodes' trees, and this process: "the rest" of a pinned run. */
export function pinRest(apiPids: number[], cpus: string): void {
  const apiTrees = new Set(apiPids.flatMap((pid) => [pid, ...descendants(pid).map((d) => d.pid)]));
  for (const p of descendants()) if (!apiTrees.has(p.pid)) taskset(p.pid, cpus);
  taskset(process.pid, cpus);
}

/** Every descendant and this process back on every core. */
export function unpinAll(): void {
  const all = `0-${os.cpus().length - 1}`;
  for (const p of descendants()) spawnSync('taskset', ['-a', '-p', '-c', all, String(p.pid)]);
  spawnSync('taskset', ['-a', '-p', '-c', all, String(process.pid)]);
}
