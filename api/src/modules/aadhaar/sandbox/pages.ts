import { Brand } from '@esign/contract';
import { escapeHtml as e } from '../../notifications/templates';

/**
 * The sandbox ESP's pages: plain server-rendered HTML, everything escaped, no script but the auto-post. In the
 * product's purple (Brand, the console's primary colour).
 */
const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f6f8;margin:0;color:#1d2330}
main{max-width:460px;margin:24px auto;background:#fff;border-radius:10px;padding:22px;box-shadow:0 2px 10px #0001}
h1{font-size:20px;margin:0 0 6px}.sandbox{background:#fff3e0;color:#8a4b00;font-size:13px;padding:8px 10px;border-radius:6px}
label{display:block;margin:14px 0 4px;font-weight:600}input[type=text],input[type=tel]{width:100%;box-sizing:border-box;font-size:17px;padding:10px;border:1px solid #9aa4b2;border-radius:6px}
.consent{display:flex;gap:10px;align-items:flex-start;font-weight:400;background:${Brand.tint};padding:10px;border-radius:6px}
input:focus{outline:2px solid ${Brand.primary};outline-offset:1px}input[type=checkbox]{accent-color:${Brand.primary}}
.error{color:#b3261e;font-weight:600}.row{display:flex;gap:10px;margin-top:18px}
button{font-size:16px;padding:10px 18px;border-radius:6px;border:0;background:${Brand.primary};color:${Brand.onPrimary};cursor:pointer}
button:hover{background:${Brand.primaryDark}}
button.secondary{background:#fff;color:${Brand.primary};border:1px solid ${Brand.primary}}.muted{color:#5b6472;font-size:13px}
</style></head><body><main>${body}</main></body></html>`;

const banner = `<p class="sandbox">Sandbox ESP: a stand-in for a licensed eSign Service Provider. It issues test certificates
that no verifier trusts unless told to. Nothing here is sent to UIDAI.</p>`;

const cancelForm = (action: string) =>
  `<form method="post" action="${e(action)}/cancel"><button class="secondary" type="submit">Cancel</button></form>`;

export function consentPage(p: {
  action: string;
  aspId: string;
  docInfo: string;
  name: string;
  error?: string | null;
  aadhaar?: string;
}): string {
  return layout(
    'Aadhaar eSign',
    `<h1>Aadhaar eSign</h1>${banner}
<p class="muted">${e(p.aspId)} asks you to sign: ${e(p.docInfo)}</p>
<form method="post" action="${e(p.action)}/aadhaar">
<label class="consent"><input type="checkbox" name="consent" value="yes" required>
<span>I hereby authorise the eSign Service Provider to use my Aadhaar number and the OTP sent to my Aadhaar-linked
mobile number to authenticate me with UIDAI for this electronic signature, and to issue a signing certificate in my
name for it.</span></label>
${p.error ? `<p class="error" role="alert">${e(p.error)}</p>` : ''}
<label for="aadhaar">Aadhaar number</label>
<input id="aadhaar" name="aadhaar" type="text" inputmode="numeric" autocomplete="off" maxlength="14" required
 value="${e(p.aadhaar ?? '')}" placeholder="12-digit Aadhaar number">
<label for="name">Name as on Aadhaar <span class="muted">(sandbox only: the resident record it stands in for)</span></label>
<input id="name" name="name" type="text" maxlength="200" required value="${e(p.name)}">
<div class="row"><button type="submit">Get OTP</button></div></form>
${cancelForm(p.action)}`,
  );
}

export function otpPage(p: { action: string; maskedPhone: string; triesLeft: number; error?: string | null }): string {
  return layout(
    'Aadhaar eSign: OTP',
    `<h1>Enter the OTP</h1>${banner}
<p>An OTP was sent to the mobile number linked to your Aadhaar (${e(p.maskedPhone)}).</p>
<form method="post" action="${e(p.action)}/otp">
${p.error ? `<p class="error" role="alert">${e(p.error)}</p>` : ''}
<label for="otp">OTP</label>
<input id="otp" name="otp" type="tel" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required>
<p class="muted">${p.triesLeft} ${p.triesLeft === 1 ? 'try' : 'tries'} left.</p>
<div class="row"><button type="submit">Verify and sign</button></div></form>
${cancelForm(p.action)}`,
  );
}

/** Sends the browser on with a form post (the CCA browser flow); a button for browsers without script. */
export function autoPostPage(action: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('');
  return layout(
    'Returning to the signing page',
    `<form method="post" action="${e(action)}">${inputs}<p>Returning to the signing page…</p>
<noscript><button type="submit">Continue</button></noscript></form>
<script>document.forms[0].submit()</script>`,
  );
}

export function errorPage(message: string): string {
  return layout('Aadhaar eSign', `<h1>Aadhaar eSign</h1>${banner}<p class="error" role="alert">${e(message)}</p>`);
}
