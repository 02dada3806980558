import { Controller, Get, Header, HttpCode, Param, Post, Req, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { raw } from 'express';
import { Public } from '../../../common/auth/auth-context';
import { PkiResponder } from './pki-responder.service';

/** An OCSP request is a few hundred bytes; 64 KB is ample and bounds what one request can make us parse. */
const OCSP_REQUEST_LIMIT = '64kb';
const OCSP_RESPONSE = 'application/ocsp-response';

const parseRaw = raw({ type: () => true, limit: OCSP_REQUEST_LIMIT });

/**
 * The body of POST /pki/ocsp as bytes, whatever its declared type (the application's JSON and form parsers leave an
 * application/ocsp-request body alone). Too large, unreadable or already parsed as something else: null, which is
 * answered malformedRequest (never an error page: OCSP clients read only OCSP responses).
 */
function ocspBody(req: Request): Promise<Uint8Array | null> {
  return new Promise((resolve) =>
    parseRaw(req, req.res!, (err?: unknown) =>
      resolve(!err && Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : null),
    ),
  );
}

/** Base64 (standard or URL-safe) of an RFC 6960 A.1 GET request, percent-decoded already; null when it is not. */
function base64Request(parts: string | string[]): Uint8Array | null {
  const text = (Array.isArray(parts) ? parts.join('/') : parts).replace(/\s/g, '+');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text) || text.length > 12_000) return null;
  return new Uint8Array(Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/**
 * The development PKI as a public CA publishes it (issue 19): its OCSP responder, its CRLs and its CA certificates,
 * named in every certificate it issues. Public (no apikey): PDF verifiers (Acrobat, pdfsig, esign-cli) read them with
 * no credentials, and nothing here is secret or rate-limited. The answers carry the wall-clock time rather than the
 * injected Clock's: they are checked elsewhere against other clocks (OpenSSL and NSS allow five minutes either way),
 * and in production the two are the same.
 */
@ApiTags('pki')
@Controller('pki')
export class PkiController {
  constructor(private readonly responder: PkiResponder) {}

  @Public()
  @ApiOperation({
    summary: 'OCSP responder (RFC 6960): POST application/ocsp-request, answers application/ocsp-response.',
  })
  @Post('ocsp')
  @HttpCode(200)
  async ocsp(@Req() req: Request): Promise<StreamableFile> {
    return new StreamableFile(await this.responder.answer(await ocspBody(req), new Date()), { type: OCSP_RESPONSE });
  }

  @Public()
  @ApiOperation({ summary: 'OCSP responder, GET form: /pki/ocsp/{base64 of the DER request} (RFC 6960 A.1).' })
  @Get('ocsp/*request')
  async ocspGet(@Param('request') request: string | string[]): Promise<StreamableFile> {
    return new StreamableFile(await this.responder.answer(base64Request(request), new Date()), { type: OCSP_RESPONSE });
  }

  @Public()
  @ApiOperation({ summary: "A CA's certificate revocation list (DER, signed by the CA)." })
  @Get('crl/:ca.crl')
  @Header('Cache-Control', 'no-cache')
  async crl(@Param('ca') ca: string): Promise<StreamableFile> {
    return new StreamableFile(await this.responder.crl(ca, new Date()), { type: 'application/pkix-crl' });
  }

  @Public()
  @ApiOperation({ summary: "A CA's certificate (DER): the caIssuers of the certificates it issued." })
  @Get('ca/:ca.crt')
  @Header('Cache-Control', 'public, max-age=86400')
  async ca(@Param('ca') ca: string): Promise<StreamableFile> {
    return new StreamableFile(await this.responder.caCertificate(ca), { type: 'application/pkix-cert' });
  }
}
