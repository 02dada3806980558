import { Controller, Delete, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  requestListQuerySchema,
  refIdParamSchema,
  type DraftListItem,
  type RequestListQueryParams,
  type RequestListItem,
} from '@esign/contract';
import type { Response } from 'express';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { sendPage } from '../../common/rest-query';
import { InputParam, InputQuery } from '../../common/validation/input';
import { restQuery, RequestListsService } from './request-lists.service';
import { RequestLifecycle } from './request-lifecycle.service';
import { UnsavedDrafts, type DiscardResult } from './unsaved-drafts';

/** A Ref ID in the path (`:id`): anything but 1 to 15 digits is no request (404 'Request not found.'). */
const RefId = () => InputParam('id', refIdParamSchema);

/**
 * The console's resources in the ra-data-simple-rest convention: GET /api/requests?sort=["timestamp","DESC"]
 * &range=[0,4]&filter={"q":"…"} answers the page with Content-Range: requests 0-4/123.
 */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api')
export class RestRequestsController {
  constructor(
    private readonly lists: RequestListsService,
    private readonly lifecycle: RequestLifecycle,
    private readonly unsaved: UnsavedDrafts,
  ) {}

  @ApiOperation({ summary: 'Sent requests, paginated, sorted and searched (digits: Ref ID; text: file name).' })
  @Get('requests')
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(requestListQuerySchema) query: RequestListQueryParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RequestListItem[]> {
    const q = restQuery(query, false);
    const { total, items } = await this.lists.listItems(auth.orgId, q);
    return sendPage(res, 'requests', { rows: items, start: q.offset, total });
  }

  @ApiOperation({ summary: 'One sent request: its parties, with the remark and time of a rejection.' })
  @Get('requests/:id')
  async one(@Auth() auth: AuthContext, @RefId() refId: number): Promise<RequestListItem> {
    // The list's own view: each party that rejected carries rejected_at and remark.
    return this.lists.one(auth.orgId, refId, false);
  }

  @ApiOperation({ summary: 'Cancel a sent request and remove it from the list.' })
  @Delete('requests/:id')
  async remove(@Auth() auth: AuthContext, @RefId() refId: number): Promise<{ id: number }> {
    await this.lists.one(auth.orgId, refId, false);
    await this.lifecycle.delete(auth, refId);
    return { id: refId };
  }

  @ApiOperation({ summary: 'Drafts, paginated, sorted and searched like requests.' })
  @Get('drafts')
  async drafts(
    @Auth() auth: AuthContext,
    @InputQuery(requestListQuerySchema) query: RequestListQueryParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DraftListItem[]> {
    const q = restQuery(query, true);
    const { total, items } = await this.lists.draftItems(auth.orgId, q);
    return sendPage(res, 'drafts', { rows: items, start: q.offset, total });
  }

  @Get('drafts/:id')
  async draft(@Auth() auth: AuthContext, @RefId() refId: number): Promise<RequestListItem> {
    return this.lists.one(auth.orgId, refId, true);
  }

  @Delete('drafts/:id')
  async removeDraft(@Auth() auth: AuthContext, @RefId() refId: number): Promise<{ id: number }> {
    await this.lists.one(auth.orgId, refId, true);
    await this.lifecycle.delete(auth, refId);
    return { id: refId };
  }

  @ApiOperation({
    summary:
      'Discard the draft an upload made if it was never saved (Back from the placement): { id, kept: false }; a saved draft or a sent request is kept ({ kept: true }).',
  })
  @Delete('drafts/:id/unsaved')
  discardUnsaved(@Auth() auth: AuthContext, @RefId() refId: number): Promise<DiscardResult> {
    return this.unsaved.discard(auth, refId);
  }
}
