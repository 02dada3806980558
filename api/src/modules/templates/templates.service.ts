import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RequestMessages, type TemplateAnnotation } from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import { AuditService } from '../audit/audit.service';
import { readFormFields, validateAnnotation } from '../documents/pdf/forms';
import { inspectPdf } from '../documents/pdf/inspect';
import { LinksService } from '../secrets/links.service';
import { DocumentStorage } from '../storage/document-storage';
import { TemplateEntity } from './template.entity';

export interface TemplateView {
  id: string;
  template_id: string;
  template_name: string;
  template_link: string;
  template_annotation: TemplateAnnotation;
  filename: string;
  total_pages: number;
  field_count: number;
  timestamp: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseJson(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${field} must be JSON.`);
  }
}

/** Templates: a PDF plus its form-field annotation (stored by key in document storage, as it can be large). */
@Injectable()
export class TemplatesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: DocumentStorage,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly links: LinksService,
  ) {}

  async entity(orgId: string, id: string): Promise<TemplateEntity> {
    const t = UUID.test(id) ? await this.db.manager.findOneBy(TemplateEntity, { orgId, id }) : null;
    if (!t) throw new AppError('NOT_FOUND', RequestMessages.templateNotFound);
    return t;
  }

  async list(orgId: string, offset = 0, limit = 100): Promise<{ total: number; items: TemplateView[] }> {
    const [rows, total] = await this.db.manager.findAndCount(TemplateEntity, {
      where: { orgId },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
    return { total, items: await Promise.all(rows.map((t) => this.view(t))) };
  }

  async get(orgId: string, id: string): Promise<TemplateView> {
    return this.view(await this.entity(orgId, id));
  }

  async annotation(t: TemplateEntity): Promise<TemplateAnnotation> {
    return JSON.parse((await this.storage.get(t.annotationKey)).toString('utf8')) as TemplateAnnotation;
  }

  async file(orgId: string, id: string): Promise<{ bytes: Buffer; filename: string }> {
    const t = await this.entity(orgId, id);
    return { bytes: await this.storage.get(t.fileKey), filename: t.filename };
  }

  async view(t: TemplateEntity): Promise<TemplateView> {
    return {
      id: t.id,
      template_id: t.id,
      template_name: t.name,
      template_link: await this.links.documentUrl(t.orgId, t.id, 'template'),
      template_annotation: await this.annotation(t),
      filename: t.filename,
      total_pages: t.totalPages,
      field_count: t.fieldCount,
      timestamp: t.createdAt.toISOString(),
    };
  }

  /** A template from a PDF: its AcroForm fields are read unless an annotation is given. */
  async create(
    auth: AuthContext,
    input: { name: unknown; annotation?: unknown },
    file: { bytes: Buffer; filename: string; mimeType: string } | undefined,
  ): Promise<TemplateView> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name || name.length > 200) throw new AppError('VALIDATION_FAILED', RequestMessages.templateNameRequired);
    if (!file) throw new AppError('VALIDATION_FAILED', RequestMessages.fileRequired);
    const inspected = await inspectPdf(file);
    const annotation =
      input.annotation === undefined || input.annotation === ''
        ? await readFormFields(inspected.bytes)
        : validateAnnotation(parseJson(input.annotation, 'template_annotation'), inspected.totalPages);
    const fileKey = (await this.storage.put(inspected.bytes)).key;
    const annotationKey = (await this.storage.put(Buffer.from(JSON.stringify(annotation), 'utf8'))).key;
    const now = this.clock.now();
    const t = this.db.manager.create(TemplateEntity, {
      id: randomUUID(),
      orgId: auth.orgId,
      name,
      fileKey,
      filename: file.filename,
      totalPages: inspected.totalPages,
      annotationKey,
      fieldCount: annotation.annotations.length,
      createdAt: now,
      updatedAt: now,
    });
    await this.db.transaction(async (manager) => {
      await manager.insert(TemplateEntity, t);
      await this.audit.record(manager, {
        orgId: auth.orgId,
        type: 'template.created',
        actor: actorOf(auth),
        data: { templateId: t.id, name, sha256: fileKey, fields: t.fieldCount },
      });
    });
    return this.view(t);
  }

  async update(auth: AuthContext, id: string, input: { name?: unknown; annotation?: unknown }): Promise<TemplateView> {
    const t = await this.entity(auth.orgId, id);
    if (input.name !== undefined) {
      const name = typeof input.name === 'string' ? input.name.trim() : '';
      if (!name || name.length > 200) throw new AppError('VALIDATION_FAILED', RequestMessages.templateNameRequired);
      t.name = name;
    }
    if (input.annotation !== undefined) {
      const annotation = validateAnnotation(parseJson(input.annotation, 'template_annotation'), t.totalPages);
      t.annotationKey = (await this.storage.put(Buffer.from(JSON.stringify(annotation), 'utf8'))).key;
      t.fieldCount = annotation.annotations.length;
    }
    t.updatedAt = this.clock.now();
    await this.db.transaction(async (manager) => {
      await manager.save(TemplateEntity, t);
      await this.audit.record(manager, {
        orgId: auth.orgId,
        type: 'template.updated',
        actor: actorOf(auth),
        data: { templateId: t.id, name: t.name, fields: t.fieldCount },
      });
    });
    return this.view(t);
  }

  async delete(auth: AuthContext, id: string): Promise<{ id: string }> {
    const t = await this.entity(auth.orgId, id);
    await this.db.transaction(async (manager) => {
      await manager.delete(TemplateEntity, { id: t.id, orgId: auth.orgId });
      await this.audit.record(manager, {
        orgId: auth.orgId,
        type: 'template.deleted',
        actor: actorOf(auth),
        data: { templateId: t.id, name: t.name },
      });
    });
    return { id: t.id };
  }
}
