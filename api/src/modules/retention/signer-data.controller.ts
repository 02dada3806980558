import { Controller, HttpCode, Post, Res, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { signerLookupSchema, type SignerErasureResult, type SignerLookup } from '@esign/contract';
import type { Response } from 'express';
import { actorOf, AdminOnly, Auth, type AuthContext } from '../../common/auth/auth-context';
import { InputBody } from '../../common/validation/input';
import { SignerDataService } from './signer-data.service';

/**
 * A signer's data (issue 24): an administrator's export and erasure of everything the organisation holds about one
 * signer, found by e-mail or mobile number. POST, not GET: the address is personal data and stays out of URLs and logs.
 */
@ApiTags('console resources')
@ApiSecurity('apikey')
@AdminOnly()
@Controller('api/signers')
export class SignerDataController {
  constructor(private readonly signers: SignerDataService) {}

  @ApiOperation({
    summary:
      "Everything this organisation holds about one signer (their parties, requests' summaries, audit events about them, one-time codes, messages, selfies and signature images) as a ZIP with manifest.json; 404 when it holds nothing.",
  })
  @ApiProduces('application/zip')
  @Post('export')
  @HttpCode(200)
  async export(
    @Auth() auth: AuthContext,
    @InputBody(signerLookupSchema) body: SignerLookup,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { zip, filename } = await this.signers.export(auth.orgId, body.identifier);
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    return new StreamableFile(zip, { type: 'application/zip', length: zip.length });
  }

  @ApiOperation({
    summary:
      "Erase the signer's selfies, videos' results, location, IP and phone from every party of theirs, audited in each request; the signed documents, name, e-mail and audit trail stay.",
  })
  @Post('erase')
  @HttpCode(200)
  erase(@Auth() auth: AuthContext, @InputBody(signerLookupSchema) body: SignerLookup): Promise<SignerErasureResult> {
    return this.signers.erase(auth.orgId, body.identifier, actorOf(auth));
  }
}
