import 'reflect-metadata';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { AppError } from '../../../common/app-error';
import { Clock } from '../../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import {
  caIdOf,
  issueOcspResponder,
  loadIssuer,
  pkiLinks,
  privateKeyOf,
  type CertificateFacts,
  type KeyPairPem,
  type PkiLinks,
} from './certificates';
import { keyHashes, normaliseSerial, REVOCATION_REASONS, type RevocationReason, type SigningKey } from './ocsp';
import { PkiAuthorityEntity } from './pki-authority.entity';
import { PkiCertificateEntity, type PkiCertificateKind } from './pki-certificate.entity';
import { parsedCertificate } from './parsed-certificates';
import { SealKeyEntity } from './seal-key.entity';

type CryptoKey = webcrypto.CryptoKey;

/** A certificate as the registry is given it: PEM or DER. */
export type CertificateInput = string | Uint8Array;

const certificate = (input: CertificateInput) => parsedCertificate(input);
const pemOf = (cert: x509.X509Certificate) => `${cert.toString('pem')}\n`;
/** A responder certificate is replaced a week before it expires (and when the clock is before its start). */
const RESPONDER_RENEWAL_MS = 7 * 24 * 3_600_000;
const usable = (pem: string, now: Date) => {
  const cert = certificate(pem);
  return cert.notBefore.getTime() <= now.getTime() && now.getTime() < cert.notAfter.getTime() - RESPONDER_RENEWAL_MS;
};

/**
 * The development PKI's books (issue 19): the CAs whose keys this installation holds (`pki_authorities`) and every
 * certificate they issue (`pki_certificates`), with its revocation. The database is the record, so every API node and
 * `manage` see the same; memory only remembers what was already written (the CAs, the long-lived certificates).
 */
@Injectable()
export class PkiRegistry {
  /** CA ids and certificate hashes already in the tables, so recording them again costs nothing. */
  private readonly known = new Set<string>();
  private readonly authorities = new Map<string, PkiAuthorityEntity>();
  private readonly keys = new Map<string, { key: Promise<CryptoKey> }>();
  private readonly responders = new Map<string, { certPem: string; signer: Promise<SigningKey> }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** What a certificate issued by the CA `caId` names for its status and its issuer (AIA, CRL distribution point). */
  links(caId: string): PkiLinks {
    return pkiLinks(this.config.publicUrl, caId);
  }

  /**
   * Makes a CA whose key is the `seal_keys` row `keyId` one this installation answers for, once; answers its id.
   * `label` says what it is (`dev-root`, `org-<orgId>`, `sandbox-esp`).
   */
  async authority(ca: { keyId: string; label: string; certPem: string; orgId: string | null }): Promise<string> {
    const id = caIdOf(ca.label, ca.certPem);
    if (this.known.has(`ca:${id}`)) return id;
    const { sha1, sha256 } = keyHashes(ca.certPem);
    await this.db
      .createQueryBuilder()
      .insert()
      .into(PkiAuthorityEntity)
      .values({
        id,
        keyId: ca.keyId,
        orgId: ca.orgId,
        certPem: pemOf(certificate(ca.certPem)),
        keySha1: sha1,
        keySha256: sha256,
        createdAt: this.clock.now(),
      })
      .orIgnore()
      .execute();
    this.known.add(`ca:${id}`);
    return id;
  }

  /**
   * Records a certificate the CA `caId` issued. Each one-time certificate is recorded once, as it is issued (one insert);
   * `once: false` is for the long-lived ones, recorded again at every start of a node (nothing written the second time).
   */
  async record(
    caId: string,
    input: CertificateInput | CertificateFacts,
    kind: PkiCertificateKind,
    orgId: string | null,
    options: { again?: boolean; manager?: EntityManager } = {},
  ): Promise<void> {
    // A certificate just issued here comes with its facts (issueSignerCertificate's): it is not parsed back.
    const cert = typeof input === 'string' || input instanceof Uint8Array ? certificate(input) : input;
    const sha256 = createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex');
    if (options.again && this.known.has(`cert:${sha256}`)) return;
    const row = {
      serial: normaliseSerial(cert.serialNumber),
      caId,
      kind,
      orgId,
      subject: cert.subject,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      sha256,
      revokedAt: null,
      revocationReason: null,
      createdAt: this.clock.now(),
    };
    const query = (options.manager ?? this.db.manager)
      .createQueryBuilder()
      .insert()
      .into(PkiCertificateEntity)
      .values(row);
    await (options.again ? query.orIgnore() : query).execute();
    if (options.again) this.known.add(`cert:${sha256}`);
  }

  /** The CA this installation answers for whose public key hashes to `hash` (an OCSP CertID's issuerKeyHash). */
  async authorityByKeyHash(algorithm: 'SHA-1' | 'SHA-256', hash: string): Promise<PkiAuthorityEntity | null> {
    const cacheKey = `${algorithm}:${hash}`;
    const cached = this.authorities.get(cacheKey);
    if (cached) return cached;
    const row = await this.db.manager.findOneBy(
      PkiAuthorityEntity,
      algorithm === 'SHA-1' ? { keySha1: hash } : { keySha256: hash },
    );
    if (row) this.authorities.set(cacheKey, row);
    return row;
  }

  /** The CA that issued `cert` if it is one of ours (found by the issuer's key, through its key identifier). */
  async authorityOfIssuer(issuer: CertificateInput): Promise<PkiAuthorityEntity | null> {
    return this.authorityByKeyHash('SHA-256', keyHashes(pemOf(certificate(issuer))).sha256);
  }

  async authorityById(id: string): Promise<PkiAuthorityEntity | null> {
    if (!/^[a-z0-9][a-z0-9_-]{0,95}$/.test(id)) return null;
    const cached = this.authorities.get(`id:${id}`);
    if (cached) return cached;
    const row = await this.db.manager.findOneBy(PkiAuthorityEntity, { id });
    if (row) this.authorities.set(`id:${id}`, row);
    return row;
  }

  /**
   * The issuer of a certificate when it is one of our CAs, found by the certificate's authority key identifier (for a
   * certificate whose chain was not given).
   */
  async ourIssuerOf(input: CertificateInput): Promise<PkiAuthorityEntity | null> {
    const keyId = certificate(input).getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
    if (!keyId) return null;
    // Our CAs' key identifiers are the SHA-1 of their public key (RFC 5280 4.2.1.2 method 1).
    return this.authorityByKeyHash('SHA-1', keyId.toLowerCase());
  }

  /** The CA's certificate and key as stored (the row may have moved: a replaced CA keeps its key under another id). */
  private async caPair(authority: PkiAuthorityEntity): Promise<KeyPairPem> {
    const current = (await this.db.manager.findOneBy(PkiAuthorityEntity, { id: authority.id })) ?? authority;
    const row = await this.db.manager.findOneBy(SealKeyEntity, { id: current.keyId });
    const same =
      row && Buffer.from(certificate(row.certPem).rawData).equals(Buffer.from(certificate(current.certPem).rawData));
    if (!row || !same) throw new Error(`the key of the CA ${authority.id} is no longer held by this installation`);
    return { certPem: row.certPem, keyPem: row.keyPem };
  }

  /** The CA's private key, for its CRLs. A CA's id names its certificate, so its key never changes. */
  async signingKey(authority: PkiAuthorityEntity): Promise<CryptoKey> {
    const cached = this.keys.get(authority.id);
    if (cached) return cached.key;
    const key = this.caPair(authority).then(async (pair) => (await loadIssuer(pair, [])).key);
    key.catch(() => this.keys.delete(authority.id));
    this.keys.set(authority.id, { key });
    return key;
  }

  /**
   * The CA's delegated OCSP responder, valid at `now`: the stored one (read each time: another node may have replaced
   * it), or a new one (issueOcspResponder) stored unless another node stored one first (then theirs). Recorded in the
   * registry like everything the CA issues; revoking it (`manage revoke-certificate`) makes the next answer use a new
   * one.
   */
  async responder(authority: PkiAuthorityEntity, now: Date): Promise<SigningKey> {
    let row = await this.db.manager.findOneByOrFail(PkiAuthorityEntity, { id: authority.id });
    const cached = this.responders.get(authority.id);
    if (cached && cached.certPem === row.responderCertPem && usable(cached.certPem, now)) return cached.signer;
    if (!row.responderCertPem || !row.responderKeyPem || !usable(row.responderCertPem, now)) {
      const made = await issueOcspResponder(await this.caPair(authority), now);
      const old = row.responderCertPem;
      const updated = await this.db.manager
        .createQueryBuilder()
        .update(PkiAuthorityEntity)
        .set({ responderCertPem: made.certPem, responderKeyPem: made.keyPem })
        .where('id = :id', { id: authority.id })
        .andWhere(old === null ? 'responder_cert_pem IS NULL' : 'responder_cert_pem = :old', { old })
        .execute();
      if (updated.affected) await this.record(authority.id, made.certPem, 'ocsp', authority.orgId, { again: true });
      row = await this.db.manager.findOneByOrFail(PkiAuthorityEntity, { id: authority.id });
    }
    const certPem = row.responderCertPem!;
    const pair = { certPem, keyPem: row.responderKeyPem! };
    const signer = privateKeyOf(pair).then((key) => ({ certDer: new Uint8Array(certificate(certPem).rawData), key }));
    signer.catch(() => this.responders.delete(authority.id));
    this.responders.set(authority.id, { certPem, signer });
    return signer;
  }

  /** The registry's row for a certificate a CA of ours issued, or null when it is not recorded. */
  async entry(caId: string, serial: string): Promise<PkiCertificateEntity | null> {
    return this.db.manager.findOneBy(PkiCertificateEntity, { caId, serial: normaliseSerial(serial) });
  }

  /** Every certificate the CA revoked, for its CRL. */
  async revokedBy(caId: string): Promise<PkiCertificateEntity[]> {
    return this.db.manager
      .getRepository(PkiCertificateEntity)
      .createQueryBuilder('c')
      .where('c.ca_id = :caId AND c.revoked_at IS NOT NULL', { caId })
      .orderBy('c.revoked_at', 'ASC')
      .getMany();
  }

  /** The registered certificates (newest first), for `manage list-certificates`. */
  async list(filter: { orgId?: string; limit: number }): Promise<PkiCertificateEntity[]> {
    return this.db.manager.find(PkiCertificateEntity, {
      where: filter.orgId ? { orgId: filter.orgId } : {},
      order: { createdAt: 'DESC' },
      take: filter.limit,
    });
  }

  /**
   * Revokes a certificate a CA of ours issued (`manage revoke-certificate`): from now on OCSP answers revoked, the CA's
   * CRL lists it and the product signs nothing with it.
   */
  async revoke(serialText: string, reason: string, caId?: string): Promise<PkiCertificateEntity> {
    if (!REVOCATION_REASONS.includes(reason as RevocationReason))
      throw new AppError('VALIDATION_FAILED', `The reason must be one of: ${REVOCATION_REASONS.join(', ')}.`);
    let serial: string;
    try {
      serial = normaliseSerial(serialText);
    } catch (err) {
      throw new AppError('VALIDATION_FAILED', `${(err as Error).message}.`);
    }
    const rows = (await this.db.manager.findBy(PkiCertificateEntity, { serial })).filter(
      (r) => !caId || r.caId === caId,
    );
    if (!rows.length)
      throw new AppError(
        'NOT_FOUND',
        `No certificate with serial ${serial} was issued by this installation's certification authorities${caId ? ` (CA ${caId})` : ''}.`,
      );
    if (rows.length > 1)
      throw new AppError(
        'VALIDATION_FAILED',
        `Serial ${serial} was issued by several CAs (${rows.map((r) => r.caId).join(', ')}): name one with --ca.`,
      );
    const [row] = rows;
    if (row.kind === 'root')
      throw new AppError(
        'VALIDATION_FAILED',
        `"${row.subject}" is a root CA: no one can vouch for its revocation. Stop trusting it (and make a new one) instead.`,
      );
    if (row.revokedAt)
      throw new AppError(
        'CONFLICT',
        `The certificate "${row.subject}" (serial ${serial}) was already revoked on ${row.revokedAt.toISOString()} (${row.revocationReason}).`,
      );
    const now = this.clock.now();
    await this.db.transaction(async (manager) => {
      await manager.update(
        PkiCertificateEntity,
        { serial: row.serial, caId: row.caId, revokedAt: IsNull() },
        { revokedAt: now, revocationReason: reason },
      );
      // A revoked OCSP responder signs no more answers: the CA gets a new one at its next answer.
      const authority = row.kind === 'ocsp' ? await manager.findOneBy(PkiAuthorityEntity, { id: row.caId }) : null;
      if (
        authority?.responderCertPem &&
        normaliseSerial(certificate(authority.responderCertPem).serialNumber) === row.serial
      )
        await manager.update(
          PkiAuthorityEntity,
          { id: authority.id },
          { responderCertPem: null, responderKeyPem: null },
        );
    });
    return { ...row, revokedAt: now, revocationReason: reason };
  }
}
