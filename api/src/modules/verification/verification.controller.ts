import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { refIdParamSchema } from '@esign/contract';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth, Public, type AuthContext } from '../../common/auth/auth-context';
import { InputParam } from '../../common/validation/input';
import { LinksService } from '../secrets/links.service';
import { verificationPage } from './verification-page';
import { atParam, VerificationService, type VerificationReport } from './verification.service';

/** A Ref ID in the path: anything but 1 to 15 digits is no request (404 'Request not found.'). */
const RefId = () => InputParam('refId', refIdParamSchema);

/** The verification report of a request's signed document, as JSON for staff keys (and esign-cli's users). */
@ApiTags('console resources')
@ApiSecurity('apikey')
@Controller('api')
export class VerificationController {
  constructor(private readonly verification: VerificationService) {}

  @ApiOperation({
    summary:
      "The request's signed document verified: each signature's signer, method, integrity, chain, level, timestamp and revocation data, the document timestamps; with ?at=DATE whether each would still validate then.",
  })
  @Get('requests/:refId/verification')
  report(@Auth() auth: AuthContext, @RefId() refId: number, @Query('at') at?: string): Promise<VerificationReport> {
    return this.verification.report(auth.orgId, refId, atParam(at));
  }
}

/**
 * The same report as a page for people, through a signed, expiring link (the console's 'Verification report', the
 * recipient's verification_url): the link is the permission, as for document links.
 */
@ApiTags('documents')
@Controller('docs/reports')
export class VerificationPageController {
  constructor(
    private readonly verification: VerificationService,
    private readonly links: LinksService,
  ) {}

  @Public()
  @ApiOperation({ summary: "A request's verification report as a page, through a signed, expiring link." })
  @Get(':orgId/:refId/verification.html')
  async page(
    @Param('orgId') orgId: string,
    @RefId() refId: number,
    @Query('exp') exp: string,
    @Query('sig') sig: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    await this.links.verifyReportLink(orgId, refId, exp, sig);
    const [report, org] = await Promise.all([
      this.verification.report(orgId, refId),
      this.verification.organisation(orgId),
    ]);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'private, no-store');
    // No script, no other origin: inline styles only.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    return verificationPage(report, org);
  }
}
