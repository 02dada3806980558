/**
 * Aadhaar eSign through an ESP: the ESP's answer posted back by the signer's browser, and the built-in sandbox ESP's
 * forms. These are HTML form posts (application/x-www-form-urlencoded): every field is text.
 */
import { z } from 'zod';

const formText = (description: string) => z.string().optional().meta({ description });

/** POST /v1/aadhaar/response/{orgId}/{requestId}: the ESP's <EsignResp> in `msg` (or `eSignResponse`). */
export const espResponseSchema = z
  .object({
    msg: formText("The ESP's signed <EsignResp> XML."),
    eSignResponse: formText('Another name of msg.'),
  })
  .transform((body) => ({ msg: body.msg ?? body.eSignResponse ?? '' }))
  .meta({
    examples: [{ msg: '<EsignResp ver="2.1" status="1" ts="2026-11-22T14:30:00" txn="…" resCode="…">…</EsignResp>' }],
  });

/** POST /esp-sandbox/esign: the ASP's signed <Esign> request in `msg` (or `eSignRequest`). */
export const sandboxEsignSchema = z
  .object({
    msg: formText("The ASP's signed <Esign> XML."),
    eSignRequest: formText('Another name of msg.'),
  })
  .transform((body) => ({ msg: body.msg ?? body.eSignRequest }))
  .meta({ examples: [{ msg: '<Esign ver="2.1" sc="Y" ts="2026-11-22T14:29:00" txn="…" aspId="…">…</Esign>' }] });

/** POST /esp-sandbox/session/{id}/aadhaar: consent, the Aadhaar number and the name. */
export const sandboxAadhaarSchema = z
  .object({
    consent: formText("'yes' when the signer consented."),
    aadhaar: formText('A 12-digit test Aadhaar number.'),
    name: formText('The name as on Aadhaar.'),
  })
  .meta({ examples: [{ consent: 'yes', aadhaar: '9999 0000 1234', name: 'Asha Rao' }] });

/** POST /esp-sandbox/session/{id}/otp: the OTP the sandbox sent. */
export const sandboxOtpSchema = z.object({ otp: formText('The 6-digit OTP.') }).meta({ examples: [{ otp: '123456' }] });

export type SandboxAadhaarForm = z.output<typeof sandboxAadhaarSchema>;
export type SandboxOtpForm = z.output<typeof sandboxOtpSchema>;
