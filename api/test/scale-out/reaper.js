// The scale-out harness's watchdog (cluster.ts starts one per test process): it reads what the harness started from
// stdin, one line each ("g PID": a process group, "p PID": a process, "r PID": stopped, forget it, "d PATH": the
// cluster's directory) and, when stdin ends without a last "exit" line (the test process died, even by SIGKILL), kills
// all of them and deletes the directory. Jest's sandbox does
// not deliver the real process's exit and signal events to a test module, so this runs outside it.
const { rmSync } = require('node:fs');

const groups = new Set();
const dirs = new Set();
const pids = new Set();
let buffer = '';
let clean = false;

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl).trim();
    const [kind, value] = line.split(/\s+/);
    buffer = buffer.slice(nl + 1);
    const pid = Number(value);
    if (kind === 'exit') clean = true;
    else if (kind === 'd') dirs.add(line.slice(2));
    else if (kind === 'g' && pid > 0) groups.add(pid);
    else if (kind === 'p' && pid > 0) pids.add(pid);
    else if (kind === 'r') {
      groups.delete(pid);
      pids.delete(pid);
    }
  }
});
process.stdin.on('end', () => {
  if (!clean) {
    for (const pgid of groups) kill(-pgid);
    for (const pid of pids) kill(pid);
    // Give the killed processes a moment to let go of their files.
    setTimeout(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }, 500);
    return;
  }
  process.exit(0);
});
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);

function kill(target) {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}
