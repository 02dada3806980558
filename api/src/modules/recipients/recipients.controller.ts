import { Controller, Delete, Get, Headers, HttpCode, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  dscTokenSchema,
  esignatureSchema,
  failedSchema,
  fieldAttachmentSchema,
  fieldIdParamSchema,
  fieldValuesBodySchema,
  initQuerySchema,
  livenessSchema,
  locationSchema,
  rejectSchema,
  sendOtpQuerySchema,
  signerDetailsSchema,
  verifyOtpSchema,
  type FailedReport,
  type InputOf,
  type SignatureFields,
  type SignerDetails,
} from '@esign/contract';
import type { Request, Response } from 'express';
import { uploadedFile } from '../../common/uploaded-file';
import { InputBody, InputParam, InputQuery } from '../../common/validation/input';
import { answerDocument, wantedRange } from '../requests/document-answer';
import { LivenessService } from './liveness.service';
import { SignerOtpService } from './signer-otp.service';
import { RecipientSigning } from './recipient-signing.service';
import { RecipientsService } from './recipients.service';
import { SignerChecks } from './signer-checks.service';
import { SignerFields } from './signer-fields.service';
import { Signer, SignerRoute, type SignerContext } from './signer-link.guard';

const ipOf = (req: Request): string | null => req.ip ?? req.socket.remoteAddress ?? null;

/**
 * The recipient calls of the specification (section 7). Each needs the party's link token; the organisation, Ref ID,
 * order and request id in the path must be the token's party's (SignerLinkGuard).
 */
@ApiTags('v1 recipient')
@Controller('v1')
export class RecipientsController {
  private readonly log = new Logger('Recipients');

  constructor(
    private readonly recipients: RecipientsService,
    private readonly checks: SignerChecks,
    private readonly signing: RecipientSigning,
    private readonly otp: SignerOtpService,
    private readonly liveness: LivenessService,
    private readonly signerFields: SignerFields,
  ) {}

  @SignerRoute()
  @ApiOperation({ summary: 'The signing request as the recipient sees it, and the total pages.' })
  @Get('reference/:orgId/:refId/:orderNo')
  reference(@Signer() signer: SignerContext) {
    return this.recipients.reference(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary: "The document the reference's uploadUrl shows, by the link token (the signing page's viewer).",
    description:
      'The same permission as uploadUrl (a live request, a signer, the OTP verified in this browser where it is ' +
      'asked for). Answers HTTP Range requests like the document links: 206 with Content-Range, 416 beyond the end.',
  })
  @Get('document/:orgId/:refId/:orderNo')
  async document(
    @Signer() signer: SignerContext,
    @Headers('range') rangeHeader: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const doc = await this.recipients.document(signer, wantedRange(rangeHeader));
    return answerDocument(res, doc, rangeHeader, doc.filename, this.log);
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: "DSC: { usb_token } goes to the signer's desktop agent, which signs with the USB token." })
  @Post('dscToken/:orgId/:requestId')
  @HttpCode(200)
  dscToken(
    @Signer() signer: SignerContext,
    @InputBody(dscTokenSchema) body: InputOf<typeof dscTokenSchema>,
    @Req() req: Request,
  ) {
    return this.signing.dscToken(signer, body.usb_token, ipOf(req));
  }

  @SignerRoute()
  @ApiOperation({
    summary:
      "Aadhaar eSign: 200 when the name in the signer's certificate matched theirs; 400 with the message and return_url",
  })
  @Get('aadhaar_discrepancy_check/:requestId')
  discrepancy(@Signer() signer: SignerContext) {
    return this.signing.discrepancy(signer);
  }

  @SignerRoute()
  @ApiOperation({
    summary: "Send an OTP to the party by SMS and e-mail (in ?lang=, the page's language); answers its id as userId.",
  })
  @Get('sendotp/:orgId/:refId/:order')
  sendOtp(
    @Signer() signer: SignerContext,
    @InputQuery(sendOtpQuerySchema) query: InputOf<typeof sendOtpQuerySchema>,
    @Req() req: Request,
  ) {
    return this.otp.send(signer, ipOf(req), query.lang);
  }

  @SignerRoute()
  @ApiOperation({ summary: 'Verify an OTP: { otp } → { code, verify, expired }.' })
  @Post('verifyotp/:userId')
  @HttpCode(200)
  verifyOtp(
    @Signer() signer: SignerContext,
    @Param('userId') userId: string,
    @InputBody(verifyOtpSchema) body: InputOf<typeof verifyOtpSchema>,
    @Req() req: Request,
  ) {
    return this.otp.verify(signer, userId, body.otp, ipOf(req));
  }

  // A face capture in the body needs the signer session (checked by the service); opening and accepting do not.
  @SignerRoute()
  @ApiOperation({ summary: 'Signer details: status opened or signing (accepted), device, position, face capture.' })
  @Post('signer_details/:orgId/:refId/:orderNo')
  @HttpCode(200)
  signerDetails(
    @Signer() signer: SignerContext,
    @InputBody(signerDetailsSchema) body: SignerDetails,
    @Req() req: Request,
  ) {
    return this.checks.signerDetails(signer, body, ipOf(req), req.headers['user-agent']);
  }

  @SignerRoute()
  @ApiOperation({ summary: "Whether the organisation asks for the signer's location." })
  @Get('location_required/:orgId')
  locationRequired(@Signer() signer: SignerContext) {
    return this.checks.locationRequired(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: 'Decide whether the signer may sign from their position: { latitude, longitude, orgId }.' })
  @Post('get_location')
  @HttpCode(200)
  getLocation(
    @Signer() signer: SignerContext,
    @InputBody(locationSchema) body: InputOf<typeof locationSchema>,
    @Req() req: Request,
  ) {
    return this.checks.getLocation(signer, { lat: body.latitude, long: body.longitude }, ipOf(req));
  }

  @SignerRoute()
  @ApiOperation({ summary: "The organisation's live video setting and threshold." })
  @Get('video_org_status/:orgId')
  videoOrgStatus(@Signer() signer: SignerContext) {
    return this.checks.videoOrgStatus(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary:
      'Liveness: { video_file } (the 4.5 s recording as a data: URL) is scored for blinks; data.liveliness_score.value, passed against the threshold.',
  })
  @Post('liveness/:orgId/:requestId')
  @HttpCode(200)
  livenessCheck(
    @Signer() signer: SignerContext,
    @InputBody(livenessSchema) body: InputOf<typeof livenessSchema>,
    @Req() req: Request,
  ) {
    return this.liveness.check(signer, body.video_file, ipOf(req));
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: 'Start signing with a method (?method=0 Aadhaar, 1 DSC, 2 e-Signature).' })
  @Get('init/:orgId/:requestId')
  init(
    @Signer() signer: SignerContext,
    @InputQuery(initQuerySchema) query: InputOf<typeof initQuerySchema>,
    @Req() req: Request,
  ) {
    return this.signing.init(signer, query.method, ipOf(req));
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary:
      'Submit the electronic signature: file (multipart PNG/JPEG, or a data: URL), kind drawn|typed|uploaded, style normal|italic.',
  })
  @Post('esignature/:orgId/:requestId')
  @HttpCode(200)
  esignature(
    @Signer() signer: SignerContext,
    @InputBody(esignatureSchema, {
      consumes: ['multipart/form-data', 'application/json'],
      files: { file: 'The signature image (PNG or JPEG, under 1 MB); or send file as a data: URL.' },
    })
    body: SignatureFields,
    @Req() req: Request,
  ) {
    const file = uploadedFile(req);
    return this.signing.esignature(
      signer,
      { ...body, file: file ? { bytes: file.bytes, filename: file.filename || null } : null },
      ipOf(req),
    );
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary: "The party's own fields beyond the signature box, their values and how many required ones are left.",
  })
  @Get('fields/:orgId/:refId/:orderNo')
  ownFields(@Signer() signer: SignerContext) {
    return this.signerFields.view(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary: "Fill the party's own fields: { values: { fieldId: value } }, all checked before any is kept.",
  })
  @Post('fields/:orgId/:refId/:orderNo')
  @HttpCode(200)
  fillFields(
    @Signer() signer: SignerContext,
    @InputBody(fieldValuesBodySchema) body: InputOf<typeof fieldValuesBodySchema>,
    @Req() req: Request,
  ) {
    return this.signerFields.save(signer, body.values, ipOf(req));
  }

  @SignerRoute({ session: true })
  @ApiOperation({
    summary: 'Attach a file to an attachment field: multipart file, a PDF, PNG or JPEG of at most 5 MB.',
  })
  @Post('fields/:orgId/:refId/:orderNo/:fieldId/attachment')
  @HttpCode(200)
  attach(
    @Signer() signer: SignerContext,
    @InputParam('fieldId', fieldIdParamSchema) fieldId: string,
    @InputBody(fieldAttachmentSchema, {
      consumes: ['multipart/form-data'],
      files: { file: 'The file: a PDF, PNG or JPEG of at most 5 MB (checked by its content).' },
    })
    _body: InputOf<typeof fieldAttachmentSchema>,
    @Req() req: Request,
  ) {
    return this.signerFields.attach(signer, fieldId, uploadedFile(req), ipOf(req));
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: "Remove an attachment field's file." })
  @Delete('fields/:orgId/:refId/:orderNo/:fieldId/attachment')
  detach(
    @Signer() signer: SignerContext,
    @InputParam('fieldId', fieldIdParamSchema) fieldId: string,
    @Req() req: Request,
  ) {
    return this.signerFields.detach(signer, fieldId, ipOf(req));
  }

  @SignerRoute()
  @ApiOperation({ summary: "The party's signing status (polled every second)." })
  @Get('request/:orgId/:requestId')
  status(@Signer() signer: SignerContext) {
    return this.recipients.status(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: 'Reject the document with a remark (required).' })
  @Post('esign/reject/:orgId/:refId/:orderNo')
  @HttpCode(200)
  reject(
    @Signer() signer: SignerContext,
    @InputBody(rejectSchema) body: InputOf<typeof rejectSchema>,
    @Req() req: Request,
  ) {
    return this.recipients.reject(signer, body.remark, ipOf(req));
  }

  @SignerRoute()
  @ApiOperation({ summary: "Where to go after signing (return_url) and the signed document's link." })
  @Get('download/:orgId/:requestId')
  download(@Signer() signer: SignerContext) {
    return this.recipients.download(signer);
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: 'Record a failed signing attempt: { send_email, errorCode, errorMessage }.' })
  @Post('failed/:orgId/:requestId')
  @HttpCode(200)
  failed(@Signer() signer: SignerContext, @InputBody(failedSchema) body: FailedReport, @Req() req: Request) {
    return this.recipients.failed(signer, body, ipOf(req));
  }

  @SignerRoute({ session: true })
  @ApiOperation({ summary: "Another signing attempt, or 'Count Exceeded'." })
  @Get('retry/:orgId/:requestId')
  retry(@Signer() signer: SignerContext, @Req() req: Request) {
    return this.recipients.retry(signer, ipOf(req));
  }
}
