import { Inject, Injectable } from '@nestjs/common';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../common/app-error';
import { weakEtag } from '../../common/http/direct-answers';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** How long a page read from disk is answered from memory before its file's modification time is checked again. */
const RECHECK_MS = 1000;

/** The two built web apps: the console (admin/) and the signer app (signer-web/). */
export type WebApp = 'admin' | 'signer-web';

/** An app's index.html as it is answered: its bytes and their entity tag (as Express makes it: weak, length-SHA-1). */
export interface WebPage {
  html: Buffer;
  etag: string;
}

interface CachedPage extends WebPage {
  mtimeMs: number;
  checkedAt: number;
}

/**
 * Each app's index.html (two entries), kept in memory: reading it from disk cost more than the rest of the answer. A
 * rebuild while the server runs is seen within RECHECK_MS (the file's modification time changes). Shared by
 * WebController and the pages' fast path (page-answers.ts), so both answer the same bytes.
 */
@Injectable()
export class WebPages {
  private readonly pages = new Map<WebApp, CachedPage>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The app's page; AppError UNAVAILABLE when the app is not built. */
  async page(app: WebApp): Promise<WebPage> {
    const now = Date.now();
    const cached = this.pages.get(app);
    if (cached && now - cached.checkedAt < RECHECK_MS) return cached;
    const file = join(app === 'admin' ? this.config.webRoots.admin : this.config.webRoots.signer, 'index.html');
    try {
      const { mtimeMs } = await stat(file);
      if (cached && cached.mtimeMs === mtimeMs) {
        cached.checkedAt = now;
        return cached;
      }
      const html = await readFile(file);
      const page = { html, etag: weakEtag(html), mtimeMs, checkedAt: now };
      this.pages.set(app, page);
      return page;
    } catch {
      this.pages.delete(app);
      throw new AppError('UNAVAILABLE', `The ${app} app is not built: run npm run build.`);
    }
  }
}
