import { Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  espResponseSchema,
  sandboxAadhaarSchema,
  sandboxEsignSchema,
  sandboxOtpSchema,
  type InputOf,
  type SandboxAadhaarForm,
  type SandboxOtpForm,
} from '@esign/contract';
import type { Response } from 'express';
import { Public } from '../../common/auth/auth-context';
import { InputBody, type InputBodyOptions } from '../../common/validation/input';
import { AadhaarService } from './aadhaar.service';
import { SandboxEspService, type Page } from './sandbox/sandbox-esp.service';

/** The ESP's pages post HTML forms. */
const FORM: InputBodyOptions = { consumes: ['application/x-www-form-urlencoded'] };

const sendPage = (res: Response, page: Page) => {
  res.status(page.status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.send(page.html);
};

/**
 * The ESP's answer comes back through the signer's browser (a form post from the ESP's page, so no link token): the
 * answer itself is the proof (the ESP's XML signature, the txn and the hash of a pending transaction of this party).
 */
@ApiTags('v1 recipient')
@Controller('v1/aadhaar')
export class AadhaarController {
  constructor(private readonly aadhaar: AadhaarService) {}

  @Public()
  @ApiOperation({
    summary: "The ESP's <EsignResp> (form field msg or eSignResponse): embeds it, then the result page.",
  })
  @Post('response/:orgId/:requestId')
  @HttpCode(303)
  async response(
    @Param('orgId') orgId: string,
    @Param('requestId') requestId: string,
    @InputBody(espResponseSchema, FORM) body: InputOf<typeof espResponseSchema>,
    @Res() res: Response,
  ): Promise<void> {
    const outcome = await this.aadhaar.respond(orgId, requestId, body.msg);
    res.redirect(303, outcome.redirect);
  }
}

/** The built-in sandbox ESP's pages (only without a real ESP configured). */
@ApiTags('sandbox ESP')
@Controller('esp-sandbox')
export class SandboxEspController {
  constructor(private readonly sandbox: SandboxEspService) {}

  @Public()
  @ApiOperation({ summary: "Sandbox ESP: the ASP's signed <Esign> request (form field msg or eSignRequest)." })
  @Post('esign')
  async esign(
    @InputBody(sandboxEsignSchema, FORM) body: InputOf<typeof sandboxEsignSchema>,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.sandbox.start(body.msg));
  }

  @Public()
  @ApiOperation({ summary: 'Sandbox ESP: consent, Aadhaar number and name; sends the OTP.' })
  @Post('session/:id/aadhaar')
  async aadhaarNumber(
    @Param('id') id: string,
    @InputBody(sandboxAadhaarSchema, FORM) body: SandboxAadhaarForm,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.sandbox.aadhaar(id, body));
  }

  @Public()
  @ApiOperation({ summary: 'Sandbox ESP: the OTP; signs and posts the answer back, or cancels after 3 wrong ones.' })
  @Post('session/:id/otp')
  async otp(
    @Param('id') id: string,
    @InputBody(sandboxOtpSchema, FORM) body: SandboxOtpForm,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.sandbox.otp(id, body));
  }

  @Public()
  @ApiOperation({ summary: 'Sandbox ESP: the signer cancels; a failure answer goes back to the ASP.' })
  @Post('session/:id/cancel')
  async cancel(@Param('id') id: string, @Res() res: Response): Promise<void> {
    sendPage(res, await this.sandbox.cancel(id));
  }
}
