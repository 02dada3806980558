import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Signer } from '@libpdf/core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, In, type EntityManager } from 'typeorm';
import { AppError } from '../../../common/app-error';
import { Clock } from '../../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { Revocation } from '../evidence/revocation';
import {
  caIdOf,
  certificateInfo,
  generateRootCa,
  issueOrganisationCa,
  issueSealCertificate,
  issueTsaCertificate,
  issueSignerCertificate,
  loadIssuer,
  pdfSignerFromPem,
  readPkcs12,
  Pkcs12Error,
  type IssuerMaterial,
  type KeyPairPem,
  type Pkcs12Material,
  type Pkcs12Problem,
} from './certificates';
import { parsedCertificate } from './parsed-certificates';
import { PkiAuthorityEntity } from './pki-authority.entity';
import type { PkiCertificateEntity } from './pki-certificate.entity';
import { PkiRegistry } from './pki-registry.service';
import { SealKeyEntity } from './seal-key.entity';

/** What the certificate of completion and the audit trail record of a signing certificate. */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  serialNumber: string;
}

export interface ReadySigner {
  signer: Signer;
  certificate: CertificateSummary;
}

/** A PKCS#12 refused by importPkcs12 (nothing changed): `problem` says why, the message says it for `manage`. */
export class SealImportError extends AppError {
  constructor(
    readonly problem: Pkcs12Problem | 'expired',
    message: string,
  ) {
    super('VALIDATION_FAILED', message);
  }
}

/** The certificate the organisation's seal rests on, and where it came from (the console's seal page). */
export interface SealCertificate {
  certPem: string;
  source: 'development' | 'imported';
}

const ROOT = 'root';
const TSA = 'tsa';
/** The CA ids' first part (see caIdOf): the development root, an organisation's issuing CA. */
const ROOT_LABEL = 'dev-root';
const orgLabel = (orgId: string) => `org-${orgId}`;
const derOf = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));
const splitPems = (text: string): string[] =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*/g)?.map((p) => p.trim()) ?? [];
// Only what the summary shows: a one-time certificate is new each time, and its other facts are never asked.
const summary = (pem: string): CertificateSummary => {
  const cert = parsedCertificate(pem);
  return { subject: cert.subject, issuer: cert.issuer, serialNumber: cert.serialNumber };
};
const isDuplicate = (err: unknown) =>
  /UNIQUE constraint|Duplicate entry|ER_DUP_ENTRY|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message));

/**
 * The seals' certificates (DESIGN.md section 2, "seal certificate"). Kept in the database so every API node signs with
 * the same ones:
 * - a development root CA, generated at first need; its certificate is also written to $DATA_DIR/pki/dev-root-ca.pem
 *   so a verifier can be told to trust it;
 * - per organisation, an issuing CA (under the root) that certifies a one-time certificate in each signer's name, and
 *   the seal certificate of the final seal;
 * - or the organisation's own PKCS#12 (management command, or SEAL_P12 for all): a CA certificate issues as above, a
 *   leaf certificate makes every signature itself.
 * Every certificate the development root and the organisations' CAs issue names this installation's OCSP responder
 * and CRL (AIA, CRL distribution point) and is recorded in the PKI registry; before each signature the chain is checked
 * against revocation (Revocation.assertNotRevoked), so a revoked certificate signs nothing.
 */
@Injectable()
export class SealPkiService {
  private readonly log = new Logger('SealPki');
  /** Issuers with their key imported, by organisation, reused while the stored certificate is the same one. */
  private readonly issuers = new Map<string, { certPem: string; material: Promise<IssuerMaterial> }>();
  /** Each organisation's seal signer, its key imported once (and again when its certificate or key changes). */
  private readonly sealSigners = new Map<
    string,
    { certPem: string; keyPem: string; chainPem: string | null; signer: Promise<Signer> }
  >();
  /** The root's row once read: it never changes. */
  private rootRow: Promise<SealKeyEntity> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: PkiRegistry,
    private readonly revocation: Revocation,
  ) {}

  private rows(manager: EntityManager = this.db.manager) {
    return manager.getRepository(SealKeyEntity);
  }

  /** Inserts the row unless another node got there first; answers the row that won. */
  private async insertOnce(row: SealKeyEntity): Promise<SealKeyEntity> {
    try {
      await this.rows().insert(row);
      return row;
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      return this.rows().findOneByOrFail({ id: row.id });
    }
  }

  /** The development root CA (generated at first need); its certificate file is kept up to date for verifiers. */
  async root(): Promise<KeyPairPem> {
    const row = await (this.rootRow ??= this.loadRoot().catch((err: unknown) => {
      this.rootRow = null;
      throw err;
    }));
    return { certPem: row.certPem, keyPem: row.keyPem };
  }

  private async loadRoot(): Promise<SealKeyEntity> {
    let row = await this.rows().findOneBy({ id: ROOT });
    if (!row) {
      const pair = await generateRootCa(this.clock.now());
      row = await this.insertOnce(this.entity(ROOT, null, 'root', pair, [], 'generated'));
      this.log.log(`development root CA generated: ${certificateInfo(row.certPem).subject}`);
    }
    const caId = await this.registry.authority({ keyId: ROOT, label: ROOT_LABEL, certPem: row.certPem, orgId: null });
    await this.registry.record(caId, row.certPem, 'root', null, { again: true });
    this.exportRoot(row.certPem);
    return row;
  }

  /** The development root and its CA id (what the certificates it issues name in their AIA and CRL URLs). */
  private async rootAuthority(): Promise<{ pair: KeyPairPem; caId: string }> {
    const pair = await this.root();
    return { pair, caId: caIdOf(ROOT_LABEL, pair.certPem) };
  }

  /**
   * The built-in development TSA's key and certificate (issued by the development root at first need), with its
   * chain up to the root: what the development timestamp authority signs tokens with.
   */
  async devTsa(): Promise<KeyPairPem & { chainPems: string[] }> {
    let row = await this.rows().findOneBy({ id: TSA });
    const { pair: root, caId } = await this.rootAuthority();
    if (!row) {
      const pair = await issueTsaCertificate(root, this.clock.now(), this.registry.links(caId));
      row = await this.insertOnce(this.entity(TSA, null, 'tsa', pair, [root.certPem], 'generated'));
      this.log.log(`development timestamp authority certified: ${certificateInfo(row.certPem).subject}`);
    }
    await this.registry.record(caId, row.certPem, 'tsa', null, { again: true });
    return { certPem: row.certPem, keyPem: row.keyPem, chainPems: splitPems(row.chainPem) };
  }

  /** PEM of the development root CA: what a verifier trusts (pdfsig through an NSS database, Acrobat's trust list). */
  async rootCertificatePem(): Promise<string> {
    return (await this.root()).certPem;
  }

  private exportRoot(pem: string): void {
    const dir = join(this.config.dataDir, 'pki');
    const file = join(dir, 'dev-root-ca.pem');
    try {
      if (readFileSync(file, 'utf8') === pem) return;
    } catch {
      // not written yet
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, pem, { mode: 0o644 });
  }

  private entity(
    id: string,
    orgId: string | null,
    kind: SealKeyEntity['kind'],
    pair: KeyPairPem,
    chain: string[],
    source: SealKeyEntity['source'],
  ): SealKeyEntity {
    return this.rows().create({
      id,
      orgId,
      kind,
      certPem: pair.certPem,
      keyPem: pair.keyPem,
      chainPem: chain.join('\n'),
      source,
      createdAt: this.clock.now(),
    });
  }

  /** The organisation's issuer (null when its own leaf certificate signs everything) and seal rows. */
  private async organisation(org: {
    id: string;
    name: string;
  }): Promise<{ issuer: SealKeyEntity | null; seal: SealKeyEntity }> {
    // Both rows in one query: every signature of a seal asks (issue 23).
    let [issuer, seal] = await this.keyRows(org.id);
    if (seal) {
      await this.adopt(org, issuer, seal);
      return { issuer, seal };
    }
    if (this.config.seal.p12Path) {
      const material = await readPkcs12(readFileSync(this.config.seal.p12Path), this.config.seal.p12Password);
      await this.store(org, material);
    } else {
      const { pair: root, caId: rootCaId } = await this.rootAuthority();
      const now = this.clock.now();
      const caPair = await issueOrganisationCa(root, org, now, this.registry.links(rootCaId));
      issuer = await this.insertOnce(
        this.entity(`${org.id}:issuer`, org.id, 'issuer', caPair, [root.certPem], 'generated'),
      );
      const issuerPair = { certPem: issuer.certPem, keyPem: issuer.keyPem };
      const issuerCaId = caIdOf(orgLabel(org.id), issuer.certPem);
      const sealPair = await issueSealCertificate(issuerPair, org, now, this.registry.links(issuerCaId));
      await this.insertOnce(
        this.entity(
          `${org.id}:seal`,
          org.id,
          'seal',
          sealPair,
          [issuer.certPem, ...splitPems(issuer.chainPem)],
          'generated',
        ),
      );
    }
    [issuer, seal] = await this.keyRows(org.id);
    if (!seal) throw new Error(`The seal certificate of organisation '${org.id}' was not stored.`);
    await this.adopt(org, issuer, seal);
    return { issuer, seal };
  }

  /** The organisation's issuer and seal rows (null where there is none). */
  private async keyRows(orgId: string): Promise<[SealKeyEntity | null, SealKeyEntity | null]> {
    const rows = await this.rows().findBy({ id: In([`${orgId}:issuer`, `${orgId}:seal`]) });
    const row = (kind: string) => rows.find((r) => r.id === `${orgId}:${kind}`) ?? null;
    return [row('issuer'), row('seal')];
  }

  /**
   * The organisation's CA becomes one this installation answers for, and the certificates our CAs issued to it are in
   * the registry: at their creation, and for those of an earlier version at their first use (nothing is written twice).
   */
  private async adopt(org: { id: string }, issuer: SealKeyEntity | null, seal: SealKeyEntity): Promise<string | null> {
    if (!issuer) return null;
    const caId = await this.registry.authority({
      keyId: issuer.id,
      label: orgLabel(org.id),
      certPem: issuer.certPem,
      orgId: org.id,
    });
    if (issuer.source === 'generated') {
      const root = await this.rootAuthority();
      await this.registry.record(root.caId, issuer.certPem, 'ca', org.id, { again: true });
    }
    if (seal.source === 'generated') await this.registry.record(caId, seal.certPem, 'seal', org.id, { again: true });
    return caId;
  }

  /** Replaces the organisation's certificates with its PKCS#12 (a CA issues per signer; a leaf signs everything). */
  async importPkcs12(
    org: { id: string; name: string },
    bytes: Uint8Array,
    password: string,
  ): Promise<CertificateSummary> {
    let material: Pkcs12Material;
    try {
      material = await readPkcs12(bytes, password);
    } catch (err) {
      throw new SealImportError(err instanceof Pkcs12Error ? err.problem : 'format', (err as Error).message);
    }
    if (material.notAfter.getTime() <= this.clock.now().getTime())
      throw new SealImportError('expired', `The certificate "${material.subject}" has expired.`);
    await this.store(org, material);
    return summary(material.certPem);
  }

  private async store(
    org: { id: string; name: string },
    material: Pkcs12Material,
    source: SealKeyEntity['source'] = 'pkcs12',
  ): Promise<void> {
    const pair = { certPem: material.certPem, keyPem: material.keyPem };
    const now = this.clock.now();
    const caId = material.isCa ? caIdOf(orgLabel(org.id), material.certPem) : null;
    const sealPair = caId ? await issueSealCertificate(pair, org, now, this.registry.links(caId)) : null;
    // The CA being replaced keeps answering for what it issued (the signatures made with it stay verifiable): its key
    // stays, under an id of its own.
    const old = await this.rows().findOneBy({ id: `${org.id}:issuer` });
    const oldCaId = old
      ? await this.registry.authority({ keyId: old.id, label: orgLabel(org.id), certPem: old.certPem, orgId: org.id })
      : null;
    await this.db.transaction(async (manager) => {
      if (old && oldCaId && oldCaId !== caId) {
        const keptId = `${org.id}:${oldCaId.slice(-12)}`;
        await this.rows(manager).save({ ...old, id: keptId });
        await manager.update(PkiAuthorityEntity, { id: oldCaId }, { keyId: keptId });
      }
      await this.rows(manager).delete({ id: In([`${org.id}:issuer`, `${org.id}:seal`]) });
      if (material.isCa && sealPair) {
        await this.rows(manager).insert(
          this.entity(`${org.id}:issuer`, org.id, 'issuer', pair, material.chainPems, source),
        );
        await this.rows(manager).insert(
          this.entity(
            `${org.id}:seal`,
            org.id,
            'seal',
            sealPair,
            [material.certPem, ...material.chainPems],
            'generated',
          ),
        );
      } else {
        await this.rows(manager).insert(
          this.entity(`${org.id}:seal`, org.id, 'seal', pair, material.chainPems, 'pkcs12'),
        );
      }
    });
    if (caId && sealPair) {
      await this.registry.authority({
        keyId: `${org.id}:issuer`,
        label: orgLabel(org.id),
        certPem: material.certPem,
        orgId: org.id,
      });
      await this.registry.record(caId, sealPair.certPem, 'seal', org.id, { again: true });
    }
  }

  /**
   * The certificate the organisation's seals rest on: the imported PKCS#12's (the CA that issues its signers'
   * certificates, or the leaf that signs everything), else the development seal certificate (made now if the
   * organisation never signed yet, as its first signature would).
   */
  async sealCertificate(org: { id: string; name: string }): Promise<SealCertificate> {
    const { issuer, seal } = await this.organisation(org);
    if (issuer?.source === 'pkcs12') return { certPem: issuer.certPem, source: 'imported' };
    if (seal.source === 'pkcs12') return { certPem: seal.certPem, source: 'imported' };
    return { certPem: seal.certPem, source: 'development' };
  }

  /** A signer for one party's signature: a one-time certificate in their name, or the organisation's own leaf. */
  async signerFor(
    org: { id: string; name: string },
    person: { name: string; email: string | null },
  ): Promise<ReadySigner> {
    const { issuer } = await this.organisation(org);
    if (!issuer) return this.sealSigner(org);
    let cached = this.issuers.get(org.id);
    if (cached?.certPem !== issuer.certPem) {
      const material = loadIssuer({ certPem: issuer.certPem, keyPem: issuer.keyPem }, splitPems(issuer.chainPem));
      material.catch(() => this.issuers.delete(org.id));
      cached = { certPem: issuer.certPem, material };
      this.issuers.set(org.id, cached);
    }
    const material = await cached.material;
    await this.revocation.assertNotRevoked([issuer.certPem, ...splitPems(issuer.chainPem)].map(derOf));
    const caId = caIdOf(orgLabel(org.id), issuer.certPem);
    const { signer, facts } = await issueSignerCertificate(
      material,
      { name: person.name, email: person.email, organisation: org.name },
      this.clock.now(),
      this.registry.links(caId),
    );
    await this.registry.record(caId, facts, 'signer', org.id);
    return { signer, certificate: { subject: facts.subject, issuer: facts.issuer, serialNumber: facts.serialNumber } };
  }

  /** The organisation's seal, for the final signature over the completed document. */
  async sealSigner(org: { id: string; name: string }): Promise<ReadySigner> {
    const { seal } = await this.organisation(org);
    await this.revocation.assertNotRevoked([seal.certPem, ...splitPems(seal.chainPem)].map(derOf));
    let cached = this.sealSigners.get(org.id);
    const same = cached?.certPem === seal.certPem && cached.keyPem === seal.keyPem && cached.chainPem === seal.chainPem;
    if (!cached || !same) {
      const signer = pdfSignerFromPem({ certPem: seal.certPem, keyPem: seal.keyPem }, splitPems(seal.chainPem));
      signer.catch(() => this.sealSigners.delete(org.id));
      cached = { certPem: seal.certPem, keyPem: seal.keyPem, chainPem: seal.chainPem, signer };
      this.sealSigners.set(org.id, cached);
    }
    return { signer: await cached.signer, certificate: summary(seal.certPem) };
  }

  /**
   * `manage revoke-seal`: revokes the organisation's seal certificate, or its issuing CA (and so every certificate it
   * issued), when one of this installation's CAs issued it. The next signature with it fails; a new PKCS#12
   * (`manage import-seal`) or new certificates (`renew`) let the organisation sign again.
   */
  async revokeOrganisation(
    org: { id: string; name: string },
    which: 'seal' | 'issuer',
    reason: string,
  ): Promise<PkiCertificateEntity> {
    const [issuer, seal] = await Promise.all([
      this.rows().findOneBy({ id: `${org.id}:issuer` }),
      this.rows().findOneBy({ id: `${org.id}:seal` }),
    ]);
    if (!seal)
      throw new AppError(
        'NOT_FOUND',
        `Organisation '${org.id}' has no seal certificate yet (it is made for its first signature): nothing to revoke.`,
      );
    const caId = await this.adopt(org, issuer, seal);
    const row = which === 'seal' ? seal : issuer;
    if (!row)
      throw new AppError(
        'VALIDATION_FAILED',
        `Organisation '${org.id}' has no issuing CA: its own certificate "${certificateInfo(seal.certPem).subject}" signs everything (revoke-seal without --issuer).`,
      );
    const ours = row.source === 'generated' && (which === 'issuer' || caId !== null);
    const info = certificateInfo(row.certPem);
    if (!ours)
      throw new AppError(
        'VALIDATION_FAILED',
        `The ${which === 'seal' ? 'seal certificate' : 'issuing CA'} of '${org.id}' ("${info.subject}") was issued by "${info.issuer}", not by this installation: ask that CA to revoke it.`,
      );
    const issuedBy = which === 'seal' ? caId! : (await this.rootAuthority()).caId;
    return this.registry.revoke(info.serialNumber, reason, issuedBy);
  }

  /**
   * New development certificates for the organisation (a new issuing CA under the root and a new seal), after its
   * own were revoked; the old CA keeps answering for what it issued. Not for an organisation with its own PKCS#12.
   */
  async renew(org: { id: string; name: string }): Promise<CertificateSummary> {
    const { pair: root, caId: rootCaId } = await this.rootAuthority();
    const caPair = await issueOrganisationCa(root, org, this.clock.now(), this.registry.links(rootCaId));
    const info = certificateInfo(caPair.certPem);
    const material = {
      ...caPair,
      chainPems: [root.certPem],
      isCa: true,
      subject: info.subject,
      notAfter: info.notAfter,
    };
    await this.store(org, material, 'generated');
    const { seal } = await this.organisation(org);
    return summary(seal.certPem);
  }
}
