import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Signer } from '@libpdf/core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../../common/app-error';
import { Clock } from '../../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import {
  certificateInfo,
  generateRootCa,
  issueOrganisationCa,
  issueSealCertificate,
  issueTsaCertificate,
  issueSignerCertificate,
  loadIssuer,
  pdfSignerFromPem,
  readPkcs12,
  type IssuerMaterial,
  type KeyPairPem,
  type Pkcs12Material,
} from './certificates';
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

const ROOT = 'root';
const TSA = 'tsa';
const splitPems = (text: string): string[] =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*/g)?.map((p) => p.trim()) ?? [];
const summary = (pem: string): CertificateSummary => {
  const info = certificateInfo(pem);
  return { subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber };
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
 */
@Injectable()
export class SealPkiService {
  private readonly log = new Logger('SealPki');
  /** Issuers with their key imported, by organisation, reused while the stored certificate is the same one. */
  private readonly issuers = new Map<string, { certPem: string; material: Promise<IssuerMaterial> }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    let row = await this.rows().findOneBy({ id: ROOT });
    if (!row) {
      const pair = await generateRootCa(this.clock.now());
      row = await this.insertOnce(this.entity(ROOT, null, 'root', pair, [], 'generated'));
      this.log.log(`development root CA generated: ${certificateInfo(row.certPem).subject}`);
    }
    this.exportRoot(row.certPem);
    return { certPem: row.certPem, keyPem: row.keyPem };
  }

  /**
   * The built-in development TSA's key and certificate (issued by the development root at first need), with its
   * chain up to the root: what the development timestamp authority signs tokens with.
   */
  async devTsa(): Promise<KeyPairPem & { chainPems: string[] }> {
    let row = await this.rows().findOneBy({ id: TSA });
    if (!row) {
      const root = await this.root();
      const pair = await issueTsaCertificate(root, this.clock.now());
      row = await this.insertOnce(this.entity(TSA, null, 'tsa', pair, [root.certPem], 'generated'));
      this.log.log(`development timestamp authority certified: ${certificateInfo(row.certPem).subject}`);
    }
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
    let [issuer, seal] = await Promise.all([
      this.rows().findOneBy({ id: `${org.id}:issuer` }),
      this.rows().findOneBy({ id: `${org.id}:seal` }),
    ]);
    if (seal) return { issuer, seal };
    if (this.config.seal.p12Path) {
      const material = await readPkcs12(readFileSync(this.config.seal.p12Path), this.config.seal.p12Password);
      await this.store(org, material);
    } else {
      const root = await this.root();
      const now = this.clock.now();
      const caPair = await issueOrganisationCa(root, org, now);
      issuer = await this.insertOnce(
        this.entity(`${org.id}:issuer`, org.id, 'issuer', caPair, [root.certPem], 'generated'),
      );
      const issuerPair = { certPem: issuer.certPem, keyPem: issuer.keyPem };
      const sealPair = await issueSealCertificate(issuerPair, org, now);
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
    [issuer, seal] = await Promise.all([
      this.rows().findOneBy({ id: `${org.id}:issuer` }),
      this.rows().findOneByOrFail({ id: `${org.id}:seal` }),
    ]);
    return { issuer, seal: seal! };
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
      throw new AppError('VALIDATION_FAILED', (err as Error).message);
    }
    if (material.notAfter.getTime() <= this.clock.now().getTime())
      throw new AppError('VALIDATION_FAILED', `The certificate "${material.subject}" has expired.`);
    await this.store(org, material);
    return summary(material.certPem);
  }

  private async store(org: { id: string; name: string }, material: Pkcs12Material): Promise<void> {
    const pair = { certPem: material.certPem, keyPem: material.keyPem };
    const now = this.clock.now();
    const sealPair = material.isCa ? await issueSealCertificate(pair, org, now) : null;
    await this.db.transaction(async (manager) => {
      await this.rows(manager).delete({ orgId: org.id });
      if (material.isCa && sealPair) {
        await this.rows(manager).insert(
          this.entity(`${org.id}:issuer`, org.id, 'issuer', pair, material.chainPems, 'pkcs12'),
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
    const { signer, certificatePem } = await issueSignerCertificate(
      material,
      { name: person.name, email: person.email, organisation: org.name },
      this.clock.now(),
    );
    return { signer, certificate: summary(certificatePem) };
  }

  /** The organisation's seal, for the final signature over the completed document. */
  async sealSigner(org: { id: string; name: string }): Promise<ReadySigner> {
    const { seal } = await this.organisation(org);
    const signer = await pdfSignerFromPem({ certPem: seal.certPem, keyPem: seal.keyPem }, splitPems(seal.chainPem));
    return { signer, certificate: summary(seal.certPem) };
  }
}
