import { setFlagsFromString } from 'node:v8';

/**
 * V8's flag for HEAP_GROWING_PERCENT, or null for V8's own factor (0).
 *
 * Under load every request still running at a young-generation collection is promoted: at 7,000 console list
 * answers a second that is about 6 MB/s of garbage in the old generation. V8 lets that generation grow to up to four
 * times what its last full collection kept before it collects again (its factor for a small, fast-to-mark heap), so
 * the API node's resident memory climbed from 175 MB to 260 MB in 10 seconds of load and fell back once the load
 * stopped. Capping the growth at 50 % makes V8 collect that garbage every few seconds instead: the same load peaks at
 * about 200 MB with no loss of throughput (issue 23's HTTP benchmark; --optimize-for-size cut more memory but a
 * third of the signing page's throughput).
 */
export function heapGrowthFlag(percent: number): string | null {
  return percent > 0 ? `--heap-growing-percent=${percent}` : null;
}

/** Applies HEAP_GROWING_PERCENT to this process (main.ts, worker.ts): V8 reads it at every full collection. */
export function limitHeapGrowth(percent: number): void {
  const flag = heapGrowthFlag(percent);
  if (flag) setFlagsFromString(flag);
}
