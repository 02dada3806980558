import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  clientReferenceSchema,
  documentCheckSchema,
  partyOrderParamSchema,
  placementsBodySchema,
  refIdParamSchema,
  uploadSchema,
  v1ListQuerySchema,
  type DraftListItem,
  type DraftReference,
  type InputOf,
  type RequestListItem,
  type UploadInput,
  type UploadResponse,
} from '@esign/contract';
import type { Request } from 'express';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { uploadedFile } from '../../common/uploaded-file';
import { InputBody, InputParam, InputQuery, parseInput } from '../../common/validation/input';
import { RequestListsService } from './request-lists.service';
import { RequestDrafts } from './request-drafts.service';
import { RequestLifecycle } from './request-lifecycle.service';
import { TemplateUploads } from './template-uploads';

/** The staff side of the specification's /v1 calls (section 7). The organisation comes from the apikey. */
@ApiTags('v1 staff')
@ApiSecurity('apikey')
@Controller('v1')
export class V1RequestsController {
  constructor(
    private readonly requestDrafts: RequestDrafts,
    private readonly lifecycle: RequestLifecycle,
    private readonly lists: RequestListsService,
    private readonly templateUploads: TemplateUploads,
  ) {}

  @ApiOperation({ summary: 'Check a PDF before upload (type, name, size, structure, encryption); nothing is stored.' })
  @Post('onboard/checkDocument')
  @HttpCode(201)
  async checkDocument(
    @InputBody(documentCheckSchema, { consumes: ['multipart/form-data'], files: { file: 'The PDF (under 5 MB).' } })
    _fields: InputOf<typeof documentCheckSchema>,
    @Req() req: Request,
  ): Promise<{ code: 201; message: string; 'total-pages': number; repaired: boolean }> {
    const inspected = await this.requestDrafts.checkDocument(uploadedFile(req));
    return { code: 201, message: 'success', 'total-pages': inspected.totalPages, repaired: inspected.repaired };
  }

  @ApiOperation({
    summary:
      'Create a request as a draft (parties SAVED): multipart data (JSON recipients), file (or template_id), checkOrder, otpRequired, orgId, reminder, reminder_duration, clientReference (or the Idempotency-Key header: the same reference again answers the earlier request with duplicate: true).',
  })
  @Post('upload')
  @HttpCode(200)
  upload(
    @Auth() auth: AuthContext,
    @InputBody(uploadSchema, {
      consumes: ['multipart/form-data', 'application/json'],
      files: { file: 'The PDF (under 5 MB); or send template_id instead.' },
    })
    input: UploadInput,
    @Req() req: Request,
  ): Promise<UploadResponse> {
    // An idempotency key may come as the Idempotency-Key header instead of clientReference (the same check).
    const header = req.header('idempotency-key');
    const clientReference =
      input.clientReference ?? (header === undefined ? null : parseInput(clientReferenceSchema, header));
    const prepare = input.templateId
      ? this.templateUploads.preparer(auth, input.templateId, input.formFieldValues ?? undefined, input.fieldValues)
      : undefined;
    return this.requestDrafts.upload(auth, { ...input, clientReference }, uploadedFile(req), prepare);
  }

  @ApiOperation({
    summary:
      "Store each signer's placement: { data: [{ refId, order, pageNo, apply_all, rectangle, drag_coord }], orgId }.",
  })
  @Post('save')
  @HttpCode(200)
  save(@Auth() auth: AuthContext, @InputBody(placementsBodySchema) body: InputOf<typeof placementsBodySchema>) {
    return this.requestDrafts.save(auth, body.data);
  }

  @ApiOperation({
    summary: 'Submit drafts and send the invitations (sequential: the first signer; parallel: all signers).',
  })
  @Post('process')
  @HttpCode(200)
  process(@Auth() auth: AuthContext, @InputBody(placementsBodySchema) body: InputOf<typeof placementsBodySchema>) {
    return this.lifecycle.process(auth, body.data);
  }

  @ApiOperation({ summary: 'Every sent request, newest first (the console uses /api/requests, paginated).' })
  @Get('request_all/:orgId')
  async requestAll(
    @Auth() auth: AuthContext,
    @InputQuery(v1ListQuerySchema) page: InputOf<typeof v1ListQuerySchema>,
  ): Promise<{ code: 200; total: number; data: RequestListItem[] }> {
    const { total, items } = await this.lists.listItems(auth.orgId, {
      drafts: false,
      ...page,
      order: 'DESC',
      sortBy: 'listedAt',
    });
    return { code: 200, total, data: items };
  }

  @ApiOperation({ summary: 'Draft requests, newest first.' })
  @Get('drafts/:orgId')
  async drafts(
    @Auth() auth: AuthContext,
    @InputQuery(v1ListQuerySchema) page: InputOf<typeof v1ListQuerySchema>,
  ): Promise<{ code: 200; total: number; data: DraftListItem[] }> {
    const { total, items } = await this.lists.draftItems(auth.orgId, {
      drafts: true,
      ...page,
      order: 'DESC',
      sortBy: 'listedAt',
    });
    return { code: 200, total, data: items };
  }

  @ApiOperation({ summary: "A draft's parties, for editing it." })
  @Get('reference/:orgId/:refId')
  async reference(
    @Auth() auth: AuthContext,
    @InputParam('refId', refIdParamSchema) refId: number,
  ): Promise<{ code: 200; data: DraftReference[] }> {
    return { code: 200, data: await this.requestDrafts.draftReference(auth, refId) };
  }

  @ApiOperation({ summary: 'Copy a request into a new draft (same document, recipients, options and placements).' })
  @Get('duplicateRef/:orgId/:refId')
  duplicate(@Auth() auth: AuthContext, @InputParam('refId', refIdParamSchema) refId: number) {
    return this.requestDrafts.duplicate(auth, refId);
  }

  @ApiOperation({ summary: 'Delete a draft, or cancel a sent request and remove it from the lists.' })
  @Get('deleteRef/:orgId/:refId')
  delete(@Auth() auth: AuthContext, @InputParam('refId', refIdParamSchema) refId: number) {
    return this.lifecycle.delete(auth, refId);
  }

  @ApiOperation({ summary: 'Send the invitation again with a new link (the old link stops working).' })
  @Get('resend_invite/:orgId/:refId/:order')
  resend(
    @Auth() auth: AuthContext,
    @InputParam('refId', refIdParamSchema) refId: number,
    @InputParam('order', partyOrderParamSchema) order: number,
  ) {
    return this.lifecycle.resendInvite(auth, refId, order);
  }
}
