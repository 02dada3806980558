import { Controller, Get, Headers, Logger, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { refIdOf } from '@esign/contract';
import type { Response } from 'express';
import { AppError } from '../../common/app-error';
import { Public } from '../../common/auth/auth-context';
import { LinksService, type DocumentKind } from '../secrets/links.service';
import { TemplatesService } from '../templates/templates.service';
import { answerDocument, wantedRange, type DocumentBody } from './document-answer';
import { RequestRepository } from './request-repository';

const KINDS = new Set<DocumentKind>(['original', 'signed', 'template']);

/**
 * Document links for the console's Original and Signed document columns, opened in a new tab (no apikey header):
 * each link carries an expiry and an HMAC, checked here. The signer app's pdf.js viewer reads the same links.
 */
@ApiTags('documents')
@Controller('docs/files')
export class DocumentsController {
  private readonly log = new Logger('Documents');

  constructor(
    private readonly links: LinksService,
    private readonly requests: RequestRepository,
    private readonly templates: TemplatesService,
  ) {}

  @Public()
  @ApiOperation({
    summary: 'A request document through a signed, expiring link.',
    description:
      'Answers HTTP Range requests (Accept-Ranges: bytes): one range of bytes is answered 206 with Content-Range, a ' +
      'range beyond the end 416; HEAD answers the headers and the length only.',
  })
  @Get(':orgId/:id/:kind.pdf')
  async file(
    @Param('orgId') orgId: string,
    @Param('id') id: string,
    @Param('kind') kind: string,
    @Query('exp') exp: string,
    @Query('sig') sig: string,
    @Headers('range') rangeHeader: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    if (!KINDS.has(kind as DocumentKind)) throw new AppError('NOT_FOUND', 'Document not found.');
    // Every check comes before the range is looked at: a link without permission answers as it always did.
    let doc: DocumentBody;
    if (kind === 'template') {
      await this.links.verifyDocumentLink(orgId, id, 'template', exp, sig);
      const template = await this.templates.file(orgId, id);
      doc = { bytes: template.bytes, size: template.bytes.length, filename: template.filename };
    } else {
      const refId = refIdOf(id);
      if (refId === null) throw new AppError('NOT_FOUND', 'Document not found.');
      await this.links.verifyDocumentLink(orgId, refId, kind as DocumentKind, exp, sig);
      // Streamed from the store: a large PDF is never held whole in memory. The stream checks the SHA-256 as it goes,
      // or carries only the range's bytes of a file checked whole since it last changed (VerifiedKeys).
      doc = await this.requests.documentStream(orgId, refId, kind as 'original' | 'signed', wantedRange(rangeHeader));
    }
    const name = kind === 'signed' ? doc.filename.replace(/\.pdf$/i, '-signed.pdf') : doc.filename;
    // The link itself is the permission (expiry and HMAC, no cookie or header), so any page may read it: the signer
    // app's viewer fetches it even when the app was opened on another host name than PUBLIC_URL's (127.0.0.1 and
    // localhost), as it will from object storage in scale-out. pdf.js reads the range headers, so they are exposed.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Accept-Ranges, Content-Range, Content-Length, Content-Encoding');
    return answerDocument(res, doc, rangeHeader, name, this.log);
  }
}
