import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Headers, Messages, type TemplateView } from '@esign/contract';
import type { Request, Response } from 'express';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { ListQueryDto, sendPage } from '../../common/rest-query';
import { uploadedFile } from '../../common/uploaded-file';
import { TemplatesService } from './templates.service';

type TemplateBody = { template_name?: unknown; name?: unknown; template_annotation?: unknown };

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
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<{ code: 200; data: TemplateView }> {
    return { code: 200, data: await this.templates.get(auth.orgId, id) };
  }

  @ApiOperation({
    summary: 'Create a template: multipart file (PDF), template_name, optional template_annotation (JSON).',
  })
  @ApiConsumes('multipart/form-data')
  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @Req() req: Request): Promise<{ code: 201; data: TemplateView }> {
    const body = (req.body ?? {}) as TemplateBody;
    const data = await this.templates.create(
      auth,
      { name: body.template_name ?? body.name, annotation: body.template_annotation },
      uploadedFile(req),
    );
    return { code: 201, data };
  }

  @Put(':id')
  async update(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() body: TemplateBody,
  ): Promise<{ code: 200; data: TemplateView }> {
    const data = await this.templates.update(auth, id, {
      name: body?.template_name ?? body?.name,
      annotation: body?.template_annotation,
    });
    return { code: 200, data };
  }

  @Delete(':id')
  async remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<{ code: 200; message: string }> {
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
    @Query() query: ListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TemplateView[]> {
    return sendPage(res, 'templates', await this.templates.page(auth.orgId, query));
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<TemplateView> {
    return this.templates.get(auth.orgId, id);
  }

  @ApiConsumes('multipart/form-data')
  @Post()
  create(@Auth() auth: AuthContext, @Req() req: Request): Promise<TemplateView> {
    const body = (req.body ?? {}) as TemplateBody;
    return this.templates.create(
      auth,
      { name: body.template_name ?? body.name, annotation: body.template_annotation },
      uploadedFile(req),
    );
  }

  @Put(':id')
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: TemplateBody): Promise<TemplateView> {
    return this.templates.update(auth, id, {
      name: body?.template_name ?? body?.name,
      annotation: body?.template_annotation,
    });
  }

  @Delete(':id')
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<{ id: string }> {
    return this.templates.delete(auth, id);
  }
}
