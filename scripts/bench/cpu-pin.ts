/**
 * CPU affinity for the one-core vs all-cores comparison: which CPUs this
 * process may use, a server's whole process tree (children and threads
 * included, so a server that forks workers is pinned as a whole), pinning it
 * with `taskset -a -p`, and the CPU time a process, or its whole tree, used.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',').filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (b ?? a); c++) out.push(c);
  }
  return out;
}

function allowedList(statusPath: string): string | undefined {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(statusPath, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The CPUs this process may run on (its affinity mask, which a container's cpuset also narrows). */
export function allowedCpus(): number[] {
  return parseCpuList(allowedList('/proc/self/status') ?? '0');
}

/** Every live process's children, by parent pid. */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      let list = children.get(ppid);
      if (!list) children.set(ppid, (list = []));
      list.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return children;
}

/** `pid`'s live child processes. */
export function childProcesses(pid: number): number[] {
  return childrenByParent().get(pid) ?? [];
}

/** `pid` and every live descendant, parents first. */
export function processTree(pid: number): number[] {
  const children = childrenByParent();
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift()!;
    out.push(p);
    queue.push(...(children.get(p) ?? []));
  }
  return out;
}

export interface PinReport {
  processes: number;
  threads: number;
  /** Processes whose threads were not all on `cpus` and were re-pinned. */
  repinned: number;
}

/**
 * Makes every thread of every process in `pid`'s tree run on `cpus` ("0" or
 * "0-1"), re-pinning with `taskset -a -p` any process that has a thread
 * elsewhere; a server started under taskset normally needs nothing, since
 * children and threads inherit the mask. Throws when a thread stays elsewhere.
 */
export function pinTree(pid: number, cpus: string): PinReport {
  const want = parseCpuList(cpus).join(',');
  const report: PinReport = { processes: 0, threads: 0, repinned: 0 };
  for (const p of processTree(pid)) {
    let sets = threadCpus(p);
    if (sets.some((c) => c !== want)) {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(p)], { stdio: 'ignore' });
      report.repinned++;
      sets = threadCpus(p);
      const off = sets.filter((c) => c !== want).length;
      if (off) throw new Error(`pid ${p}: ${off} of ${sets.length} threads still not on CPU ${cpus} after taskset`);
    }
    if (sets.length) report.processes++;
    report.threads += sets.length;
  }
  return report;
}

/** Processes and threads in `pid`'s tree and the distinct CPU sets their threads may use ("0" or "0,1"). */
export function describeTree(pid: number): { processes: number; threads: number; cpus: string[] } {
  const sets = new Set<string>();
  let processes = 0;
  let threads = 0;
  for (const p of processTree(pid)) {
    const t = threadCpus(p);
    if (t.length) processes++;
    threads += t.length;
    for (const c of t) sets.add(c);
  }
  return { processes, threads, cpus: [...sets] };
}

/** The CPU set ("0,1") of each live thread of `pid`. */
function threadCpus(pid: number): string[] {
  const out: string[] = [];
  for (const tid of safeReaddir(`/proc/${pid}/task`)) {
    const list = allowedList(`/proc/${pid}/task/${tid}/status`);
    if (list !== undefined) out.push(parseCpuList(list).join(','));
  }
  return out;
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** User + system CPU seconds a live process has used so far (from /proc/<pid>/stat, in clock ticks of 1/100 s). */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by `pid`'s tree (the live processes; workers that exited are not counted). */
export function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  let total = 0;
  for (const p of processTree(pid)) total += cpuSeconds(p) ?? 0;
  return total;
}
