import { createHash } from 'node:crypto';
import { DEV_TSA_NAME } from '../../src/modules/signing/evidence/development-tsa';
import { TsaTimestamps } from '../../src/modules/signing/evidence/tsa-timestamps';
import { answerTimestampQuery, newTokenSerial, tsaSigner } from '../../src/modules/signing/evidence/tsa-answer';
import { DEV_TSA_POLICY } from '../../src/modules/signing/evidence/tsp';
import { generateRootCa, issueTsaCertificate } from '../../src/modules/signing/pki/certificates';

/**
 * What the built-in development TSA adds to a completion of `count` signatures, measured in a plain Node process (as
 * the server runs; Jest's module sandbox makes asn1js several times slower): the Timestamps implementation over the
 * same encoder and key type as DevelopmentTsa (an RSA certificate from issueTsaCertificate), `warmUps` (1) first, then
 * `count` timestamps in a row. Prints { wallMs, cpuMs } as JSON.
 *
 *   node -r ts-node/register/transpile-only test/support/timestamp-cost.ts 7 [warmUps]
 */
async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 7);
  const now = () => new Date();
  const root = await generateRootCa(now());
  const pair = await issueTsaCertificate(root, now());
  const signer = await tsaSigner(pair.certPem, pair.keyPem);
  const timestamps = new TsaTimestamps(
    [
      {
        name: DEV_TSA_NAME,
        ask: (query) =>
          answerTimestampQuery(query, signer, {
            now: now(),
            policy: DEV_TSA_POLICY,
            serial: newTokenSerial(),
            accuracySeconds: 1,
          }),
        now,
      },
    ],
    null,
    undefined,
    true,
  );
  const digest = (i: number) => new Uint8Array(createHash('sha256').update(`signature ${i}`).digest());
  const warmUps = Number(process.argv[3] ?? 1);
  for (let i = 0; i < warmUps; i++) await timestamps.timestamp(digest(-1 - i));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < count; i++) await timestamps.timestamp(digest(i));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000 })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
