import { Controller, Get, Inject, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CONSOLE_ROUTES, SIGNER_ROUTES, StaffRoutes } from '@esign/contract';
import type { Response } from 'express';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/**
 * Serves the two built web apps on one origin at the routes of the specification's route table: the console (admin/)
 * at the staff routes, the signer app (signer-web/) at the recipient routes. Their assets are static files mounted in
 * app.factory.ts; any other page is redirected to /not-found by the error filter.
 */
@ApiExcludeController()
@Public()
@Controller()
export class WebController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Redirect(StaffRoutes.signIn, 302)
  root(): void {}

  @Get(CONSOLE_ROUTES as string[])
  console(@Res() res: Response): Promise<void> {
    return this.sendIndex(this.config.webRoots.admin, 'admin', res);
  }

  @Get(SIGNER_ROUTES as string[])
  signer(@Res() res: Response): Promise<void> {
    return this.sendIndex(this.config.webRoots.signer, 'signer-web', res);
  }

  private async sendIndex(root: string, name: string, res: Response): Promise<void> {
    let html: Buffer;
    try {
      html = await readFile(join(root, 'index.html'));
    } catch {
      throw new AppError('UNAVAILABLE', `The ${name} app is not built: run npm run build.`);
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  }
}
