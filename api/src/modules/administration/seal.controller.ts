import { Controller, Get, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { sealImportSchema, type InputOf, type SealCertificateInfo } from '@esign/contract';
import type { Request } from 'express';
import { AdminOnly, Auth, type AuthContext } from '../../common/auth/auth-context';
import { InputBody } from '../../common/validation/input';
import { SealAdministration } from './seal-administration.service';

/** The organisation's seal certificate (the console's organisation page); administrators only. */
@ApiTags('organisations')
@ApiSecurity('apikey')
@AdminOnly()
@Controller('api/organisations/:orgId/seal')
export class SealController {
  constructor(private readonly seal: SealAdministration) {}

  @ApiOperation({
    summary:
      'The seal certificate: subject, issuer, serial, validity, days left, whether it expires within 30 days, and whether it is the development one or an imported PKCS#12.',
  })
  @Get()
  info(@Auth() auth: AuthContext): Promise<SealCertificateInfo> {
    return this.seal.info(auth.orgId);
  }

  @ApiOperation({
    summary:
      'Import a PKCS#12 (multipart: "file", and "password"): a CA certificate issues each signer\'s certificate and the seal, a leaf signs everything itself. A refused file changes nothing.',
  })
  @Put()
  import(
    @Auth() auth: AuthContext,
    @InputBody(sealImportSchema, {
      consumes: ['multipart/form-data'],
      files: { file: 'The PKCS#12 (.p12 or .pfx) with one private key and its certificate.' },
    })
    body: InputOf<typeof sealImportSchema>,
    @Req() req: Request,
  ): Promise<SealCertificateInfo> {
    const files = (req.files as Express.Multer.File[] | undefined) ?? [];
    return this.seal.import(auth.orgId, files.find((f) => f.fieldname === 'file')?.buffer, body.password);
  }
}
