import { Controller, Get, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { LinksService, type DocumentKind } from '../secrets/links.service';
import { TemplatesService } from '../templates/templates.service';
import { RequestsService, toRefId } from './requests.service';

const KINDS = new Set<DocumentKind>(['original', 'signed', 'template']);

/**
 * Document links for the console's Original and Signed document columns, opened in a new tab (no apikey header):
 * each link carries an expiry and an HMAC, checked here. The signer app's pdf.js viewer reads the same links.
 */
@ApiTags('documents')
@Controller('docs/files')
export class DocumentsController {
  constructor(
    private readonly links: LinksService,
    private readonly requests: RequestsService,
    private readonly templates: TemplatesService,
  ) {}

  @Public()
  @ApiOperation({ summary: 'A request document through a signed, expiring link.' })
  @Get(':orgId/:id/:kind.pdf')
  async file(
    @Param('orgId') orgId: string,
    @Param('id') id: string,
    @Param('kind') kind: string,
    @Query('exp') exp: string,
    @Query('sig') sig: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    if (!KINDS.has(kind as DocumentKind)) throw new AppError('NOT_FOUND', 'Document not found.');
    let doc: { bytes: Buffer; filename: string };
    if (kind === 'template') {
      await this.links.verifyDocumentLink(orgId, id, 'template', exp, sig);
      doc = await this.templates.file(orgId, id);
    } else {
      const refId = toRefId(id);
      if (refId === null) throw new AppError('NOT_FOUND', 'Document not found.');
      await this.links.verifyDocumentLink(orgId, refId, kind as DocumentKind, exp, sig);
      doc = await this.requests.document(orgId, refId, kind as 'original' | 'signed');
    }
    const name = kind === 'signed' ? doc.filename.replace(/\.pdf$/i, '-signed.pdf') : doc.filename;
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The link itself is the permission (expiry and HMAC, no cookie or header), so any page may read it: the signer
    // app's viewer fetches it even when the app was opened on another host name than PUBLIC_URL's (127.0.0.1 and
    // localhost), as it will from object storage in scale-out.
    res.setHeader('Access-Control-Allow-Origin', '*');
    return new StreamableFile(doc.bytes);
  }
}
