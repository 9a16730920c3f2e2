import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * What the benches read of a process on Linux (/proc): its memory now and at its peak, its CPU
 * seconds, and which processes are the emulators. Elsewhere the figures are NaN or empty.
 */

/** VmRSS and VmHWM of a process in kB (NaN where /proc is missing). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** Resets a process's VmHWM to its current RSS (Linux ≥ 4.0, same user); false when refused. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The highest VmRSS seen, sampled every 200 ms until stopped. */
export function rssSampler(pid: number) {
  let peak = memoryOf(pid).rss;
  const timer = setInterval(() => {
    const { rss } = memoryOf(pid);
    if (rss > peak) peak = rss;
  }, 200);
  return () => {
    clearInterval(timer);
    return Math.max(peak, memoryOf(pid).rss);
  };
}

/** CPU seconds used so far by this process's main thread: where a route served in this process runs. */
export const mainThreadCpuSeconds = () => cpuSeconds(process.pid, `/proc/${process.pid}/task/${process.pid}/stat`);

/** CPU seconds used so far by a process (utime + stime of /proc/<pid>/stat, or of the given stat file; Linux only, else NaN). */
export function cpuSeconds(pid: number, statFile = `/proc/${pid}/stat`): number {
  try {
    const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The processes whose command line holds `needle` (the emulators' JVMs, found by their port). */
export function pidsWith(needle: string): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU seconds of named groups of processes over a stretch of a run: where the time of 2 cores goes.
 * The meter starts when made; reading it answers each group's seconds since (groups under 0.05 s, or
 * unreadable, are left out).
 */
export function cpuMeter(parts: Record<string, number[]>): () => Array<[name: string, seconds: number]> {
  const read = () =>
    Object.fromEntries(Object.entries(parts).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));
  const before = read();
  return () => {
    const after = read();
    return Object.entries(after)
      .map(([name, seconds]) => [name, seconds - before[name]!] as [string, number])
      .filter(([, seconds]) => Number.isFinite(seconds) && seconds >= 0.05);
  };
}

/** The emulators' JVMs of a stack, by their ports, as cpuMeter's groups. */
export function emulatorProcesses(ports: { firestore: number; pubsub: number }): Record<string, number[]> {
  return { Firestore: pidsWith(`--port=${ports.firestore}`), 'Pub/Sub': pidsWith(`--port=${ports.pubsub}`) };
}

/** A cpuMeter reading in words: "worker 6.2 s, Firestore 3.6 s". */
export const cpuText = (used: Array<[name: string, seconds: number]>) =>
  used.map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join(', ');
