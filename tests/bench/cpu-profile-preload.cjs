/**
 * Preloaded into the built server by profile-http.mjs (node -r): a CPU profile from start until SIGUSR2, written to
 * ESIGN_CPU_PROFILE. node --cpu-prof writes only on a normal exit, and Nest's shutdown hooks end the process by signal.
 */
const fs = require('node:fs');
const inspector = require('node:inspector');

const session = new inspector.Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
process.on('SIGUSR2', () => {
  session.post('Profiler.stop', (err, result) => {
    if (!err) fs.writeFileSync(process.env.ESIGN_CPU_PROFILE, JSON.stringify(result.profile));
    process.send?.('profiled');
    fs.writeFileSync(`${process.env.ESIGN_CPU_PROFILE}.done`, '');
  });
});
