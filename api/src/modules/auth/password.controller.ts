import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  passwordLinkQuerySchema,
  setPasswordSchema,
  type InputOf,
  type PasswordLinkView,
  type SetPasswordInput,
} from '@esign/contract';
import type { Request } from 'express';
import { Public } from '../../common/auth/auth-context';
import { InputBody, InputQuery } from '../../common/validation/input';
import { PasswordLinksService } from './password-links.service';

/**
 * The set-password page's calls (issue 22): public, the link's token is the permission. Registered before
 * ConsumersController, whose GET /consumers/:username would otherwise take "password" for a username.
 */
@ApiTags('consumers')
@Controller('consumers/password')
export class PasswordController {
  constructor(private readonly links: PasswordLinksService) {}

  @Public()
  @ApiOperation({
    summary:
      'Check an invitation or password-reset link without using it: the username, organisation, purpose and expiry (throttled like sign-in).',
  })
  @Get()
  view(
    @InputQuery(passwordLinkQuerySchema) query: InputOf<typeof passwordLinkQuerySchema>,
    @Req() req: Request,
  ): Promise<PasswordLinkView> {
    return this.links.view(query.token, req.ip ?? '');
  }

  @Public()
  @ApiOperation({
    summary:
      "Set the password with an invitation or password-reset link; the link is then used up, and a reset signs the user's sessions out (throttled like sign-in).",
  })
  @Post()
  @HttpCode(200)
  set(@InputBody(setPasswordSchema) body: SetPasswordInput, @Req() req: Request): Promise<PasswordLinkView> {
    return this.links.setPassword(body, req.ip ?? '');
  }
}
