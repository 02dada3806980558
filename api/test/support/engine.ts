import type { Signer } from '@libpdf/core';
import { Revocation, type RevocationRecord } from '../../src/modules/signing/evidence/revocation';
import { Timestamps, type TimestampToken } from '../../src/modules/signing/evidence/timestamps';
import type { FieldSpec, StampInput } from '../../src/modules/signing/pdf/engine';
import { IncrementalEngine } from '../../src/modules/signing/pdf/incremental-engine';
import {
  generateRootCa,
  issueOrganisationCa,
  issueSignerCertificate,
  loadIssuer,
} from '../../src/modules/signing/pki/certificates';

/** For unit tests of B-B signatures: no timestamp authority is reachable (a call fails the test loudly). */
class NoTimestamps extends Timestamps {
  timestamp(): Promise<TimestampToken> {
    return Promise.reject(new Error('This test signs at B-B: no timestamp authority is configured for it.'));
  }
  describe() {
    return { builtIn: false, tsas: [] };
  }
}

/** For unit tests of B-B signatures: no revocation source (every look-up is a recorded gap). */
class NoRevocation extends Revocation {
  provider(record: RevocationRecord) {
    return {
      getOCSP: async () => {
        record.add({ subject: '?', serial: '?', reason: 'no revocation source in this test' });
        return null;
      },
      getCRL: async () => null,
    };
  }
  assertNotRevoked(): Promise<void> {
    return Promise.resolve();
  }
}

/** The engine as the seal job uses it, for B-B signatures in unit tests. */
export const engineB = (timestamps: Timestamps = new NoTimestamps(), revocation: Revocation = new NoRevocation()) =>
  new IncrementalEngine(timestamps, revocation);

/** One party's signature at B-B: prepare (stamp, field), sign with a key held here, finish (embed). */
export async function signParty(
  document: Uint8Array,
  stamp: StampInput,
  spec: FieldSpec & { signer: Signer },
  engine = engineB(),
): Promise<Uint8Array> {
  const { signer, ...field } = spec;
  const prepared = await engine.prepareParty(document, stamp, field);
  const cms = await engine.signWith(prepared.digest, signer);
  return (await engine.finish(prepared, cms, 'B-B')).document;
}

/** A development root and Acme's issuing CA under it: the root to trust, and a one-time certificate per signer name. */
export async function acmePki(now = new Date()) {
  const root = await generateRootCa(now);
  const issuer = await loadIssuer(await issueOrganisationCa(root, { id: 'acme', name: 'Acme' }, now), [root.certPem]);
  return {
    caPem: root.certPem,
    signerFor: (name: string) => issueSignerCertificate(issuer, { name, organisation: 'Acme' }, now),
  };
}
