import { Controller, Delete, Get, HttpCode, Post, Put, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  Headers,
  templateListQuerySchema,
  Messages,
  templateCreateSchema,
  templateIdParamSchema,
  templateUpdateSchema,
  type TemplateListQuery,
  type TemplateInput,
  type TemplateView,
} from '@esign/contract';
import type { Request, Response } from 'express';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { sendPage } from '../../common/rest-query';
import { uploadedFile } from '../../common/uploaded-file';
import { InputBody, InputParam, InputQuery, type InputBodyOptions } from '../../common/validation/input';
import { TemplatesService } from './templates.service';

/** The template's fields beside its PDF (multipart). */
const MULTIPART: InputBodyOptions = {
  consumes: ['multipart/form-data'],
  files: { file: 'The template PDF (at most 5 MB).' },
};

/** GET /v1/templates (org-id header) as the specification calls it, and the editor's create, update and delete. */
@ApiTags('v1 staff')
@ApiSecurity('apikey')
@Controller('v1/templates')
export class V1TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @ApiOperation({ summary: "The organisation's templates (data: a list; message 'Templates not found' when none)." })
  @ApiHeader({ name: Headers.orgId, required: false })
  @Get()
  async list(@Auth() auth: AuthContext): Promise<{ code: 200; data: TemplateView[]; message?: string }> {
    const { items } = await this.templates.list(auth.orgId);
    return items.length ? { code: 200, data: items } : { code: 200, data: [], message: Messages.templatesNotFound };
  }

  @Get(':id')
  async get(
    @Auth() auth: AuthContext,
    @InputParam('id', templateIdParamSchema) id: string,
  ): Promise<{ code: 200; data: TemplateView }> {
    return { code: 200, data: await this.templates.get(auth.orgId, id) };
  }

  @ApiOperation({
    summary: 'Create a template: multipart file (PDF), template_name, optional template_annotation (JSON).',
  })
  @Post()
  @HttpCode(201)
  async create(
    @Auth() auth: AuthContext,
    @InputBody(templateCreateSchema, MULTIPART) body: TemplateInput,
    @Req() req: Request,
  ): Promise<{ code: 201; data: TemplateView }> {
    return { code: 201, data: await this.templates.create(auth, body, uploadedFile(req)) };
  }

  @Put(':id')
  async update(
    @Auth() auth: AuthContext,
    @InputParam('id', templateIdParamSchema) id: string,
    @InputBody(templateUpdateSchema) body: Partial<TemplateInput>,
  ): Promise<{ code: 200; data: TemplateView }> {
    return { code: 200, data: await this.templates.update(auth, id, body) };
  }

  @Delete(':id')
  async remove(
    @Auth() auth: AuthContext,
    @InputParam('id', templateIdParamSchema) id: string,
  ): Promise<{ code: 200; message: string }> {
    await this.templates.delete(auth, id);
    return { code: 200, message: 'success' };
  }
}

/** The console's templates resource (ra-data-simple-rest). */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api/templates')
export class RestTemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @ApiOperation({
    summary:
      'Templates, paginated, sorted (template_name, template_id, filename, total_pages, field_count, timestamp, updated_at; newest first) and filtered (q: the name contains it; timestamp_gte, timestamp_lte).',
  })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(templateListQuerySchema) query: TemplateListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TemplateView[]> {
    return sendPage(res, 'templates', await this.templates.page(auth.orgId, query));
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @InputParam('id', templateIdParamSchema) id: string): Promise<TemplateView> {
    return this.templates.get(auth.orgId, id);
  }

  @Post()
  create(
    @Auth() auth: AuthContext,
    @InputBody(templateCreateSchema, MULTIPART) body: TemplateInput,
    @Req() req: Request,
  ): Promise<TemplateView> {
    return this.templates.create(auth, body, uploadedFile(req));
  }

  @Put(':id')
  update(
    @Auth() auth: AuthContext,
    @InputParam('id', templateIdParamSchema) id: string,
    @InputBody(templateUpdateSchema) body: Partial<TemplateInput>,
  ): Promise<TemplateView> {
    return this.templates.update(auth, id, body);
  }

  @Delete(':id')
  remove(@Auth() auth: AuthContext, @InputParam('id', templateIdParamSchema) id: string): Promise<{ id: string }> {
    return this.templates.delete(auth, id);
  }
}
