import { Controller, Get, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  inviteUserSchema,
  passwordLinkSchema,
  updateUserSchema,
  userIdParamSchema,
  userListQuerySchema,
  type InputOf,
  type InviteUserInput,
  type PasswordLinkSent,
  type StaffUser,
  type UpdateUserInput,
  type UserListQuery,
} from '@esign/contract';
import type { Response } from 'express';
import { AdminOnly, Auth, type AuthContext } from '../../common/auth/auth-context';
import { sendPage } from '../../common/rest-query';
import { InputBody, InputParam, InputQuery } from '../../common/validation/input';
import { UserAdministration } from './user-administration.service';

const UserId = () => InputParam('id', userIdParamSchema);

/** The organisation's staff users (ra-data-simple-rest resource `users`); administrators only. */
@ApiTags('users')
@ApiSecurity('apikey')
@AdminOnly()
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UserAdministration) {}

  @ApiOperation({
    summary:
      "List the organisation's users, paginated, sorted (username, email, role, created_at, last_login_at, id; username first) and filtered (q: the username or e-mail contains it; role; disabled).",
  })
  @Get()
  async list(
    @Auth() auth: AuthContext,
    @InputQuery(userListQuerySchema) query: UserListQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StaffUser[]> {
    return sendPage(res, 'users', await this.users.list(auth, query));
  }

  @ApiOperation({
    summary:
      'Invite a user by e-mail (role staff unless said): the user has no password until they set one with the link the e-mail carries.',
  })
  @Post()
  invite(@Auth() auth: AuthContext, @InputBody(inviteUserSchema) body: InviteUserInput): Promise<StaffUser> {
    return this.users.invite(auth, body);
  }

  @ApiOperation({ summary: 'One user: role, status (invited, active, disabled), e-mail, last sign-in.' })
  @Get(':id')
  get(@Auth() auth: AuthContext, @UserId() id: string): Promise<StaffUser> {
    return this.users.get(auth, id);
  }

  @ApiOperation({
    summary:
      "Change a user's role, disable or enable them (a disabled user's sessions end at once), or change their e-mail; the last active administrator stays one (409).",
  })
  @Put(':id')
  update(
    @Auth() auth: AuthContext,
    @UserId() id: string,
    @InputBody(updateUserSchema) body: UpdateUserInput,
  ): Promise<StaffUser> {
    return this.users.update(auth, id, body);
  }

  @ApiOperation({
    summary:
      'E-mail the user a new link to set their password (an invitation again if they never set one); earlier links die.',
  })
  @Post(':id/password-link')
  @HttpCode(200)
  passwordLink(
    @Auth() auth: AuthContext,
    @UserId() id: string,
    @InputBody(passwordLinkSchema) _body: InputOf<typeof passwordLinkSchema>,
  ): Promise<PasswordLinkSent> {
    return this.users.passwordLink(auth, id);
  }
}
