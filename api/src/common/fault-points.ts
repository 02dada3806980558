import { Inject, Injectable } from '@nestjs/common';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../config/app-config';

/** Thrown at a fault point whose action is `fail`. */
export class InjectedFault extends Error {
  constructor(point: string) {
    super(`injected fault at ${point} (ESIGN_TEST_FAULTS)`);
    this.name = 'InjectedFault';
  }
}

/**
 * Named points in the code where a test makes the process die or a step fail, to show what happens after (issue 24:
 * the watchdog finds a request whose seal died with its process). Configured by ESIGN_TEST_FAULTS, which production
 * refuses; without it `hit` does nothing. Each point acts at most `times` times over the data directory's life: the
 * hits are counted in `$DATA_DIR/test-faults/<point>`, so a restarted server does not die at the same point again.
 */
@Injectable()
export class FaultPoints {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  hit(point: string): void {
    const fault = this.config.testFaults.find((f) => f.point === point);
    if (!fault || this.config.env === 'production') return;
    const dir = join(this.config.dataDir, 'test-faults');
    const file = join(dir, point);
    let hits = 0;
    try {
      hits = readFileSync(file, 'utf8').length;
    } catch {
      // not hit yet
    }
    if (hits >= fault.times) return;
    mkdirSync(dir, { recursive: true });
    // Counted before acting: a kill must not happen again after the restart.
    appendFileSync(file, 'x');
    if (fault.action === 'kill') process.kill(process.pid, 'SIGKILL');
    throw new InjectedFault(point);
  }
}
