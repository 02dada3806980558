import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  RequestMessages,
  assignFieldIds,
  checkFieldOnPage,
  fieldListSchema,
  type TemplateAnnotation,
  type TemplateInput,
  type TemplateListQuery,
  type TemplateSortField,
  type TemplateView,
} from '@esign/contract';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { actorOf, type AuthContext } from '../../common/auth/auth-context';
import { Clock } from '../../common/clock';
import * as lists from '../../common/rest-query';
import { AuditService } from '../audit/audit.service';
import { parseInput } from '../../common/validation/input';
import { readFormFields, validateAnnotation } from '../documents/pdf/forms';
import type { PageGeometry } from '../documents/pdf/geometry';
import { shownPageSizes } from '../documents/pdf/placement';
import { inspectPdf } from '../documents/pdf/inspect';
import { LinksService } from '../secrets/links.service';
import { DocumentStorage } from '../storage/document-storage';
import { TemplateEntity } from './template.entity';

/** How each sortable field orders the rows (database columns). */
const SORT_COLUMN: Record<TemplateSortField, string> = {
  template_name: 't.template_name',
  template_id: 't.template_id',
  id: 't.template_id',
  filename: 't.filename',
  total_pages: 't.total_pages',
  field_count: 't.field_count',
  timestamp: 't.created_at',
  updated_at: 't.updated_at',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Templates: a PDF plus its form-field annotation (stored by key in document storage, as it can be large). */
/**
 * The annotation's fields for roles (issue 21, `fields`: each with its role in `signer`, Signer 1…6), checked as a
 * request's are: the contract's schema, unique ids (f1, f2… given where left out), on a page of the template's PDF.
 */
function withRoleFields(
  annotation: TemplateAnnotation,
  json: unknown,
  doc: { totalPages: number; geometry: PageGeometry[] },
): TemplateAnnotation {
  const raw =
    json && typeof json === 'object' && !Array.isArray(json) ? (json as { fields?: unknown }).fields : undefined;
  if (raw === undefined || raw === null) return annotation;
  const assigned = assignFieldIds(parseInput(fieldListSchema, raw), () => undefined);
  if (!assigned.ok) throw new AppError('VALIDATION_FAILED', assigned.message);
  const pages = shownPageSizes(doc.geometry);
  for (const f of assigned.fields) {
    const off = checkFieldOnPage(f, pages, doc.totalPages);
    if (off) throw new AppError('VALIDATION_FAILED', off);
  }
  return assigned.fields.length ? { ...annotation, fields: assigned.fields } : annotation;
}

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

  /** /v1/templates: the organisation's newest 100 templates. */
  async list(orgId: string): Promise<{ total: number; items: TemplateView[] }> {
    const [rows, total] = await this.db.manager.findAndCount(TemplateEntity, {
      where: { orgId },
      order: { createdAt: 'DESC', id: 'ASC' },
      take: 100,
    });
    return { total, items: await Promise.all(rows.map((t) => this.view(t))) };
  }

  /**
   * /api/templates: a page of the organisation's templates, sorted and filtered in the database (see
   * TEMPLATE_SORT_FIELDS and TemplateListFilter); ties in the sort go by template id, in the same direction.
   */
  async page(orgId: string, query: TemplateListQuery): Promise<lists.ListPage<TemplateView>> {
    const { start, limit, sort, order, filter } = query;
    const qb = this.db.manager.createQueryBuilder(TemplateEntity, 't').where('t.org_id = :orgId', { orgId });
    const { q, timestamp_gte: from, timestamp_lte: to } = filter;
    if (q) qb.andWhere(`t.template_name LIKE :pattern ${lists.LIKE_ESCAPE}`, { pattern: lists.containsPattern(q) });
    if (from) qb.andWhere('t.created_at >= :from', { from });
    if (to) qb.andWhere('t.created_at <= :to', { to });
    const column = SORT_COLUMN[sort];
    qb.orderBy(sort === 'template_name' || sort === 'filename' ? lists.caseless(this.db, column) : column, order);
    if (column !== 't.template_id') qb.addOrderBy('t.template_id', order);
    const [rows, total] = await qb.offset(start).limit(limit).getManyAndCount();
    return { rows: await Promise.all(rows.map((t) => this.view(t))), start, total };
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
      updated_at: t.updatedAt.toISOString(),
    };
  }

  /** A template from a PDF: its AcroForm fields are read unless an annotation is given. */
  async create(
    auth: AuthContext,
    input: TemplateInput,
    file: { bytes: Buffer; filename: string; mimeType: string } | undefined,
  ): Promise<TemplateView> {
    const { name } = input;
    if (!file) throw new AppError('VALIDATION_FAILED', RequestMessages.fileRequired);
    const inspected = await inspectPdf(file);
    const annotation =
      input.annotation === undefined
        ? await readFormFields(inspected.bytes)
        : withRoleFields(validateAnnotation(input.annotation, inspected.totalPages), input.annotation, inspected);
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

  async update(auth: AuthContext, id: string, input: Partial<TemplateInput>): Promise<TemplateView> {
    const t = await this.entity(auth.orgId, id);
    if (input.name !== undefined) t.name = input.name;
    if (input.annotation !== undefined) {
      const annotation = withRoleFields(
        validateAnnotation(input.annotation, t.totalPages),
        input.annotation,
        await inspectPdf({
          bytes: await this.storage.get(t.fileKey),
          filename: t.filename,
          mimeType: 'application/pdf',
        }),
      );
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
