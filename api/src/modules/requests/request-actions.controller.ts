import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  AdminMessages,
  cancelRequestSchema,
  noBodySchema,
  refIdParamSchema,
  type CancelRequestInput,
  type InputOf,
  type RequestActionResult,
} from '@esign/contract';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { InputBody, InputParam } from '../../common/validation/input';
import { RequestListsService } from './request-lists.service';
import { RequestLifecycle } from './request-lifecycle.service';

const RefId = () => InputParam('id', refIdParamSchema);

/**
 * A request page's actions beyond the specification's (issue 22): cancel a request in progress, and queue the seal
 * again when it failed. Staff and administrators alike; the request must be the key's organisation's.
 */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api/requests/:id')
export class RequestActionsController {
  constructor(
    private readonly lifecycle: RequestLifecycle,
    private readonly lists: RequestListsService,
  ) {}

  @ApiOperation({
    summary:
      'Cancel a request in progress (409 otherwise): its links stop, the parties who had not finished are told by e-mail, the request.cancelled webhook and an audit event with the reason follow.',
  })
  @Post('cancel')
  @HttpCode(200)
  async cancel(
    @Auth() auth: AuthContext,
    @RefId() refId: number,
    @InputBody(cancelRequestSchema) body: CancelRequestInput,
  ): Promise<RequestActionResult> {
    await this.lifecycle.cancel(auth, refId, body.reason);
    return { message: AdminMessages.requestCancelled, request: await this.lists.one(auth.orgId, refId, false) };
  }

  @ApiOperation({
    summary:
      'Queue the seal again for a request whose seal failed (409 otherwise), as `manage reseal` without --accept-level.',
  })
  @Post('reseal')
  @HttpCode(202)
  async reseal(
    @Auth() auth: AuthContext,
    @RefId() refId: number,
    @InputBody(noBodySchema) _body: InputOf<typeof noBodySchema>,
  ): Promise<RequestActionResult> {
    await this.lifecycle.reseal(auth, refId);
    return { message: AdminMessages.resealQueued, request: await this.lists.one(auth.orgId, refId, false) };
  }
}
