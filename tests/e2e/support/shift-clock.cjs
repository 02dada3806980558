// Preloaded (node --require) into a server a journey starts for itself (own-server.ts): the process's clock runs
// E2E_CLOCK_FILE's milliseconds ahead of the real one, read again every 200 ms, so the journey moves time forward as
// the API tests move their FakeClock (retention periods, the jobs' backoff) while the server runs. Timers are untouched.
const fs = require('node:fs');

const file = process.env.E2E_CLOCK_FILE;
let offset = 0;
const read = () => {
  try {
    offset = Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    offset = 0;
  }
};
read();
globalThis.setInterval(read, 200).unref();

const RealDate = Date;
class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = ShiftedDate;
