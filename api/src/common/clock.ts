/** The time source. Tests replace it to move time forward (key expiry, throttling windows). */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
