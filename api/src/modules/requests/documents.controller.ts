import { Controller, Get, Headers, Logger, Param, Query, Res, StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Messages, RequestMessages, refIdOf } from '@esign/contract';
import type { Response } from 'express';
import { AppError } from '../../common/app-error';
import { errorBody } from '../../common/error.filter';
import { byteRange } from '../../common/http/byte-range';
import { Public } from '../../common/auth/auth-context';
import { LinksService, type DocumentKind } from '../secrets/links.service';
import { TemplatesService } from '../templates/templates.service';
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
    let doc: { stream: Readable; size: number; filename: string } | { bytes: Buffer; size: number; filename: string };
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
      doc = await this.requests.documentStream(orgId, refId, kind as 'original' | 'signed', (size) => {
        const wanted = byteRange(rangeHeader, size);
        return typeof wanted === 'object' ? wanted : null;
      });
    }
    const name = kind === 'signed' ? doc.filename.replace(/\.pdf$/i, '-signed.pdf') : doc.filename;
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The link itself is the permission (expiry and HMAC, no cookie or header), so any page may read it: the signer
    // app's viewer fetches it even when the app was opened on another host name than PUBLIC_URL's (127.0.0.1 and
    // localhost), as it will from object storage in scale-out. pdf.js reads the range headers, so they are exposed.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Accept-Ranges, Content-Range, Content-Length, Content-Encoding');
    // pdf.js's viewer asks for the document in ranges (issue 23): the first page is drawn from the bytes it needs.
    res.setHeader('Accept-Ranges', 'bytes');
    const range = byteRange(rangeHeader, doc.size);
    if (range === 'unsatisfiable') {
      if ('stream' in doc) doc.stream.destroy();
      res.setHeader('Content-Range', `bytes */${doc.size}`);
      throw new AppError('RANGE_NOT_SATISFIABLE', RequestMessages.rangeNotSatisfiable);
    }
    let file: StreamableFile;
    if (range === 'none') {
      file = 'stream' in doc ? new StreamableFile(doc.stream, { length: doc.size }) : new StreamableFile(doc.bytes);
    } else {
      res.status(206);
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${doc.size}`);
      const length = range.end - range.start + 1;
      file =
        'stream' in doc
          ? new StreamableFile(doc.stream, { length })
          : new StreamableFile(doc.bytes.subarray(range.start, range.end + 1));
    }
    file.setErrorHandler((err, response) => this.streamFailed(err, response as Response));
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`);
    return file;
  }

  /**
   * A stream that fails once the reply has begun (a document that no longer matches its hash, a store that went away)
   * must not end the response as if it were complete: it is cut off. One that fails before the first byte answers 500
   * like any other internal error.
   */
  private streamFailed(err: Error, res: Response): void {
    this.log.error(`document download failed: ${err.message}`);
    if (res.destroyed) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Disposition');
    res.removeHeader('Content-Range');
    res.status(500).json(errorBody('INTERNAL', Messages.internalError));
  }
}
