// An S3-compatible server (s3rver) in its own process for the scale-out harness (cluster.ts): API nodes reach it over
// HTTP like any S3 endpoint. Usage: node s3rver-child.js DIRECTORY. Prints one JSON line {"port":N} once listening;
// stops on SIGTERM/SIGINT or when its stdin closes.
const S3rver = require('s3rver');

const directory = process.argv[2];
if (!directory) {
  process.stderr.write('usage: node s3rver-child.js DIRECTORY\n');
  process.exit(2);
}

const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });

server.run().then(
  ({ port }) => process.stdout.write(`${JSON.stringify({ port })}\n`),
  (err) => {
    process.stderr.write(`s3rver failed to start: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);

const stop = () =>
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The harness holds our stdin open; when it dies without stopping us, stdin ends: do not outlive it.
process.stdin.on('end', stop);
process.stdin.resume();
