import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { generateCa, issueRsaLeaf, type KeyPairPem } from '../signing/pki/certificates';
import { PkiRegistry } from '../signing/pki/pki-registry.service';
import { SealKeyEntity, type SealKeyKind } from '../signing/pki/seal-key.entity';

const isDuplicate = (err: unknown) =>
  /UNIQUE constraint|Duplicate entry|ER_DUP_ENTRY|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message));

/** The ASP id this product uses with its own sandbox ESP. */
export const SANDBOX_ASP_ID = 'ESIGN-SANDBOX-ASP';

export interface AspMaterial {
  aspId: string;
  keyPem: string;
  certPem: string;
}

export interface SandboxMaterial {
  /** The sandbox ESP's test CA: it issues each resident's short-lived signing certificate. */
  ca: KeyPairPem;
  /** Its id in the development PKI's URLs (OCSP, CRL, certificate), named by every certificate it issues. */
  caId: string;
  /** The sandbox ESP's own signer: it signs every `<EsignResp>`. */
  esp: KeyPairPem;
  asp: AspMaterial;
}

/**
 * The keys of Aadhaar eSign. With a real ESP configured (ESP_URL, ASP_ID, ASP_KEY, ASP_CERT, ESP_CERT) they are read
 * from those files. Without one, the built-in sandbox ESP's CA and signer and the ASP's key are generated at first need
 * and kept in the database (seal_keys), so every API node and every restart uses the same ones.
 */
@Injectable()
export class EspKeys {
  private readonly log = new Logger('EspKeys');
  private sandboxMaterial: Promise<SandboxMaterial> | null = null;
  private fileMaterial: { asp: AspMaterial; espCertPem: string } | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: PkiRegistry,
  ) {}

  get sandboxMode(): boolean {
    return this.config.esp.mode === 'sandbox';
  }

  /** Where the signing page's form goes: the real ESP, or the sandbox ESP on this server. */
  espUrl(): string {
    return this.config.esp.mode === 'esp' ? this.config.esp.url : `${this.config.publicUrl}/esp-sandbox/esign`;
  }

  /** Where the ESP posts its answer for a party (the request's responseUrl). */
  responseUrl(orgId: string, requestId: string): string {
    return `${this.config.publicUrl}/v1/aadhaar/response/${encodeURIComponent(orgId)}/${encodeURIComponent(requestId)}`;
  }

  async asp(): Promise<AspMaterial> {
    if (this.config.esp.mode === 'esp') return this.files().asp;
    return (await this.sandbox()).asp;
  }

  /** The certificate whose signature an `<EsignResp>` must carry. */
  async espCertificatePem(): Promise<string> {
    if (this.config.esp.mode === 'esp') return this.files().espCertPem;
    return (await this.sandbox()).esp.certPem;
  }

  private files(): { asp: AspMaterial; espCertPem: string } {
    if (this.config.esp.mode !== 'esp') throw new Error('no ESP is configured');
    if (!this.fileMaterial) {
      const { aspId, aspKeyPath, aspCertPath, espCertPath } = this.config.esp;
      this.fileMaterial = {
        asp: { aspId, keyPem: readFileSync(aspKeyPath, 'utf8'), certPem: readFileSync(aspCertPath, 'utf8') },
        espCertPem: readFileSync(espCertPath, 'utf8'),
      };
    }
    return this.fileMaterial;
  }

  /** The sandbox ESP's material (generated once, stored). Only in sandbox mode. */
  sandbox(): Promise<SandboxMaterial> {
    if (!this.sandboxMode) return Promise.reject(new Error('the sandbox ESP is off: a real ESP is configured'));
    this.sandboxMaterial ??= this.loadSandbox().catch((err: unknown) => {
      this.sandboxMaterial = null;
      throw err;
    });
    return this.sandboxMaterial;
  }

  private async loadSandbox(): Promise<SandboxMaterial> {
    const now = () => this.clock.now();
    const ca = await this.once('sandbox:esp-ca', 'esp-ca', () =>
      generateCa({ organisation: 'e-Sign Sandbox ESP (not for production)', commonName: 'Sandbox ESP Test CA' }, now()),
    );
    // The sandbox CA is answered for like the development PKI's: its certificates name /pki/ocsp and its CRL.
    const caId = await this.registry.authority({
      keyId: 'sandbox:esp-ca',
      label: 'sandbox-esp',
      certPem: ca.certPem,
      orgId: null,
    });
    const links = this.registry.links(caId);
    const esp = await this.once('sandbox:esp', 'esp', () =>
      issueRsaLeaf(
        ca,
        { organisation: 'e-Sign Sandbox ESP (not for production)', commonName: 'Sandbox ESP' },
        now(),
        { years: 10 },
        links,
      ),
    );
    const asp = await this.once('sandbox:asp', 'asp', () =>
      issueRsaLeaf(ca, { organisation: 'e-Sign', commonName: `ASP ${SANDBOX_ASP_ID}` }, now(), { years: 10 }, links),
    );
    await this.registry.record(caId, ca.certPem, 'root', null, { again: true });
    await this.registry.record(caId, esp.certPem, 'esp', null, { again: true });
    await this.registry.record(caId, asp.certPem, 'asp', null, { again: true });
    this.exportCa(ca.certPem);
    return { ca, caId, esp, asp: { aspId: SANDBOX_ASP_ID, keyPem: asp.keyPem, certPem: asp.certPem } };
  }

  /** The sandbox CA's certificate beside the development CA's, for verifiers told to trust sandbox signatures. */
  private exportCa(pem: string): void {
    try {
      const dir = join(this.config.dataDir, 'pki');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'sandbox-esp-ca.pem');
      if (!existsSync(file) || readFileSync(file, 'utf8') !== pem) writeFileSync(file, pem);
    } catch (err) {
      this.log.warn(`could not write the sandbox ESP CA certificate: ${(err as Error).message}`);
    }
  }

  /** The stored pair, or a new one stored unless another node got there first (then theirs). */
  private async once(id: string, kind: SealKeyKind, make: () => Promise<KeyPairPem>): Promise<KeyPairPem> {
    const rows = this.db.manager.getRepository(SealKeyEntity);
    const found = await rows.findOneBy({ id });
    if (found) return { certPem: found.certPem, keyPem: found.keyPem };
    const pair = await make();
    try {
      await rows.insert({
        id,
        orgId: null,
        kind,
        certPem: pair.certPem,
        keyPem: pair.keyPem,
        chainPem: '',
        source: 'generated',
        createdAt: this.clock.now(),
      });
      this.log.log(`sandbox ESP key generated: ${id}`);
      return pair;
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      const row = await rows.findOneByOrFail({ id });
      return { certPem: row.certPem, keyPem: row.keyPem };
    }
  }
}
