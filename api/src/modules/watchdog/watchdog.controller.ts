import { Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  noBodySchema,
  watchdogFindingIdParamSchema,
  watchdogFindingListQuerySchema,
  WatchdogMessages,
  type InputOf,
  type WatchdogFinding,
  type WatchdogFindingListQuery,
  type WatchdogRetryResult,
} from '@esign/contract';
import type { Response } from 'express';
import { actorOf, Auth, type AuthContext } from '../../common/auth/auth-context';
import { sendPage } from '../../common/rest-query';
import { InputBody, InputParam, InputQuery } from '../../common/validation/input';
import { WatchdogService } from './watchdog.service';

/**
 * The watchdog's findings (ra-data-simple-rest resource `watchdog/findings`): the dashboard's banner and its Retry.
 * About requests, like reseal: staff and administrators alike, the key's organisation only.
 */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api/watchdog/findings')
export class WatchdogController {
  constructor(private readonly watchdog: WatchdogService) {}

  @ApiOperation({
    summary:
      "The watchdog's findings: requests that should have moved and did not (seal_stuck, signing_too_long, invitation_not_sent), the latest seen first; filter state (open, reported, resolved), kind, resolved.",
  })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(watchdogFindingListQuerySchema) query: WatchdogFindingListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WatchdogFinding[]> {
    return sendPage(res, 'watchdog/findings', await this.watchdog.list(auth.orgId, query));
  }

  @ApiOperation({ summary: 'One finding.' })
  @Get(':id')
  get(@Auth() auth: AuthContext, @InputParam('id', watchdogFindingIdParamSchema) id: number): Promise<WatchdogFinding> {
    return this.watchdog.get(auth.orgId, id);
  }

  @ApiOperation({
    summary:
      "Retry now what the watchdog retries by itself (queue the seal job, send a failed invitation again, invite the next signer), through the flow's own calls and audited; 409 when it moved on or only the signer can move it.",
  })
  @Post(':id/retry')
  @HttpCode(202)
  async retry(
    @Auth() auth: AuthContext,
    @InputParam('id', watchdogFindingIdParamSchema) id: number,
    @InputBody(noBodySchema) _body: InputOf<typeof noBodySchema>,
  ): Promise<WatchdogRetryResult> {
    const finding = await this.watchdog.retryNow(auth.orgId, id, actorOf(auth));
    return { message: WatchdogMessages.retried, finding };
  }
}
