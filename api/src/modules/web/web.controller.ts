import { Controller, Get, Inject, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CONSOLE_ROUTES, SIGNER_ROUTES, StaffRoutes } from '@esign/contract';
import type { Response } from 'express';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/**
 * Serves the two built web apps on one origin at the routes of the specification's route table: the console (admin/)
 * at the staff routes, the signer app (signer-web/) at the recipient routes. Their assets are static files mounted in
 * app.factory.ts; any other page is redirected to /not-found by the error filter.
 */
/** How long a page read from disk is answered from memory before its file's modification time is checked again. */
const RECHECK_MS = 1000;

interface CachedPage {
  html: Buffer;
  mtimeMs: number;
  checkedAt: number;
}

@ApiExcludeController()
@Public()
@Controller()
export class WebController {
  /**
   * Each app's index.html (two entries), kept in memory: reading it from disk cost more than the rest of the answer.
   * A rebuild while the server runs is seen within RECHECK_MS (the file's modification time changes).
   */
  private readonly pages = new Map<string, CachedPage>();

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
    const html = await this.page(join(root, 'index.html'), name);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  }

  private async page(file: string, name: string): Promise<Buffer> {
    const now = Date.now();
    const cached = this.pages.get(file);
    if (cached && now - cached.checkedAt < RECHECK_MS) return cached.html;
    try {
      const { mtimeMs } = await stat(file);
      if (cached && cached.mtimeMs === mtimeMs) {
        cached.checkedAt = now;
        return cached.html;
      }
      const html = await readFile(file);
      this.pages.set(file, { html, mtimeMs, checkedAt: now });
      return html;
    } catch {
      this.pages.delete(file);
      throw new AppError('UNAVAILABLE', `The ${name} app is not built: run npm run build.`);
    }
  }
}
