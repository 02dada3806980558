import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  Limits,
  RetentionMessages,
  ORG_MODES,
  type LogoType,
  type OrgMode,
  type Organisation,
  type OrganisationUpdate,
} from '@esign/contract';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Repository } from 'typeorm';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { DocumentStorage } from '../storage/document-storage';
import { checkLogo } from './logo-check';
import { OrganisationEntity } from './organisation.entity';

export const ORG_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{1,63}$/;
const DEFAULT_LOGO = join(__dirname, '..', '..', '..', 'assets', 'default-logo.png');

@Injectable()
export class OrganisationsService {
  private defaultLogo?: Promise<Buffer>;

  constructor(
    @InjectRepository(OrganisationEntity) private readonly orgs: Repository<OrganisationEntity>,
    private readonly storage: DocumentStorage,
    private readonly clock: Clock,
  ) {}

  async getEntity(id: string): Promise<OrganisationEntity> {
    const org = ORG_ID_PATTERN.test(id) ? await this.orgs.findOne({ where: { id } }) : null;
    if (!org) throw new AppError('NOT_FOUND', `No organisation '${id}'.`);
    return org;
  }

  async get(id: string): Promise<Organisation> {
    return toContract(await this.getEntity(id));
  }

  count(): Promise<number> {
    return this.orgs.count();
  }

  async create(input: { id: string; name: string; mode?: OrgMode; tag?: string }): Promise<Organisation> {
    const id = input.id.trim().toLowerCase();
    if (!ORG_ID_PATTERN.test(id)) {
      throw new AppError(
        'VALIDATION_FAILED',
        'An organisation id is 2 to 64 characters: lower-case letters, digits, underscore or hyphen.',
      );
    }
    const name = input.name?.trim();
    if (!name || name.length > 200)
      throw new AppError('VALIDATION_FAILED', 'An organisation needs a name of at most 200 characters.');
    const mode = input.mode ?? 'test';
    if (!ORG_MODES.includes(mode))
      throw new AppError('VALIDATION_FAILED', `The mode is one of ${ORG_MODES.join(', ')}.`);
    if (await this.orgs.findOne({ where: { id } }))
      throw new AppError('CONFLICT', `The organisation '${id}' exists already.`);
    const now = this.clock.now();
    await this.orgs.insert({
      id,
      name,
      mode,
      tag: (input.tag ?? id).slice(0, 64),
      // Set here, not left to the column default: TypeORM writes a numeric default rounded (0.5 → '1') on MySQL.
      liveVideoThreshold: Limits.defaultLiveVideoThreshold,
      createdAt: now,
      updatedAt: now,
    });
    return this.get(id);
  }

  async update(id: string, dto: OrganisationUpdate): Promise<Organisation> {
    const org = await this.getEntity(id);
    const changes: Partial<OrganisationEntity> = {
      name: dto.name?.trim(),
      mode: dto.mode,
      tag: dto.tag,
      signatureTypes: dto.signature_types ? [...new Set(dto.signature_types)] : undefined,
      faceCapture: dto.face_capture,
      aadhaarFaceCapture: dto.aadhaar_face_capture,
      esignatureFaceCapture: dto.esignature_face_capture,
      locationCapture: dto.location_capture,
      allowSigningFromIndia: dto.allow_signing_from_india,
      liveVideo: dto.live_video,
      liveVideoThreshold: dto.live_video_threshold,
      returnUrl: dto.return_url,
      dscDownloadUrl: dto.dsc_download_url,
      dscTutorialUrl: dto.dsc_tutorial_url,
      timeZone: dto.time_zone,
      signatureLevel: dto.signature_level,
      requestExpiryDays: dto.request_expiry_days,
      // null is a value: no reminder by default.
      reminderDefaultHours: dto.reminder_default_hours,
      retentionDays: dto.retention_days,
      mediaRetentionDays: dto.media_retention_days,
    };
    // Selfies and videos go with the documents at the latest: a media period longer than the documents' is refused.
    const retention = dto.retention_days !== undefined ? dto.retention_days : org.retentionDays;
    const media = dto.media_retention_days !== undefined ? dto.media_retention_days : org.mediaRetentionDays;
    if (retention !== null && media !== null && media > retention)
      throw new AppError('VALIDATION_FAILED', RetentionMessages.mediaLonger);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(defined).length) {
      await this.orgs.update({ id: org.id }, { ...defined, updatedAt: this.clock.now() });
    }
    return this.get(id);
  }

  /** Stores the logo: a PNG, JPEG or SVG checked by its content (logo-check.ts), at most 1 MiB. */
  async setLogo(id: string, bytes: Buffer | undefined): Promise<Organisation> {
    const org = await this.getEntity(id);
    const type = checkLogo(bytes);
    const { key } = await this.storage.put(bytes!);
    await this.orgs.update({ id: org.id }, { logoKey: key, logoType: type, updatedAt: this.clock.now() });
    return this.get(id);
  }

  /**
   * The organisation's logo and its type, or the product's default (a PNG) for an organisation without one (or an
   * unknown id). A logo stored before issue 22 has no type: it was a PNG.
   */
  async logo(id: string): Promise<{ bytes: Buffer; type: LogoType }> {
    const org = ORG_ID_PATTERN.test(id) ? await this.orgs.findOne({ where: { id } }) : null;
    if (org?.logoKey) return { bytes: await this.storage.get(org.logoKey), type: org.logoType ?? 'image/png' };
    this.defaultLogo ??= readFile(DEFAULT_LOGO);
    return { bytes: await this.defaultLogo, type: 'image/png' };
  }
}

export function toContract(org: OrganisationEntity): Organisation {
  return {
    id: org.id,
    name: org.name,
    mode: org.mode,
    tag: org.tag,
    settings: {
      signature_types: org.signatureTypes,
      face_capture: org.faceCapture,
      aadhaar_face_capture: org.aadhaarFaceCapture,
      esignature_face_capture: org.esignatureFaceCapture,
      location_capture: org.locationCapture,
      allow_signing_from_india: org.allowSigningFromIndia,
      live_video: org.liveVideo,
      live_video_threshold: org.liveVideoThreshold,
      return_url: org.returnUrl,
      dsc_download_url: org.dscDownloadUrl,
      dsc_tutorial_url: org.dscTutorialUrl,
      request_expiry_days: org.requestExpiryDays,
      time_zone: org.timeZone,
      signature_level: org.signatureLevel,
      has_logo: !!org.logoKey,
      reminder_default_hours: org.reminderDefaultHours ?? null,
      retention_days: org.retentionDays ?? null,
      media_retention_days: org.mediaRetentionDays ?? null,
    },
    created_at: org.createdAt.toISOString(),
    updated_at: org.updatedAt.toISOString(),
  };
}
