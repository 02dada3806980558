import { Controller, Get, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CONSOLE_ROUTES, SIGNER_ROUTES, StaffRoutes } from '@esign/contract';
import type { Response } from 'express';
import { Public } from '../../common/auth/auth-context';
import { WebPages, type WebApp } from './web-pages';

/**
 * Serves the two built web apps on one origin at the routes of the specification's route table: the console (admin/)
 * at the staff routes, the signer app (signer-web/) at the recipient routes. Their assets are static files mounted in
 * app.factory.ts; any other page is redirected to /not-found by the error filter. A GET or HEAD of a page is answered
 * before Express's router by page-answers.ts (the same bytes and headers); this controller answers what that leaves,
 * such as a page whose app is not built (503).
 */
@ApiExcludeController()
@Public()
@Controller()
export class WebController {
  constructor(private readonly pages: WebPages) {}

  @Get()
  @Redirect(StaffRoutes.signIn, 302)
  root(): void {}

  @Get(CONSOLE_ROUTES as string[])
  console(@Res() res: Response): Promise<void> {
    return this.sendIndex('admin', res);
  }

  @Get(SIGNER_ROUTES as string[])
  signer(@Res() res: Response): Promise<void> {
    return this.sendIndex('signer-web', res);
  }

  private async sendIndex(app: WebApp, res: Response): Promise<void> {
    const { html } = await this.pages.page(app);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  }
}
