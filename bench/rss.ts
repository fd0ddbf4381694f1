import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Resident set size readings of another process, in bytes. */
export interface RssProbe {
  /** RSS now. */
  current(): number;
  /**
   * Watches the RSS until `stop()`: the highest reading, and on Linux the kernel's own high-water
   * mark (VmHWM, reset when watching starts), which also catches a peak between two readings.
   */
  watch(intervalMs: number): { stop(): { peakBytes: number; samples: number } };
}

/** Linux: /proc/<pid>/status. Elsewhere: `ps -o rss=` (coarser; no kernel high-water mark). */
export function rssProbe(pid: number): RssProbe {
  const status = `/proc/${pid}/status`;
  const procfs = existsSync(status);
  const field = (name: 'VmRSS' | 'VmHWM'): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(status, 'utf8'));
    if (!match?.[1]) throw new Error(`${status} has no ${name}`);
    return Number(match[1]) * 1024;
  };
  const current = (): number =>
    procfs ? field('VmRSS') : Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;

  return {
    current,
    watch(intervalMs) {
      const highWaterMark = procfs && resetHighWaterMark(pid);
      let peak = current();
      let samples = 1;
      const timer = setInterval(() => {
        peak = Math.max(peak, current());
        samples += 1;
      }, intervalMs);
      return {
        stop() {
          clearInterval(timer);
          peak = Math.max(peak, current(), highWaterMark ? field('VmHWM') : 0);
          return { peakBytes: peak, samples: samples + 1 };
        },
      };
    },
  };
}

/** Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+, own processes). */
function resetHighWaterMark(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
