import { Brand, formatDateTime, Messages } from '@esign/contract';
import type { DocumentTimestampReport, RevocationStatus, SignatureReport } from '@esign/verifier';
import { escapeHtml as e } from '../notifications/templates';
import type { VerificationReport } from './verification.service';

/**
 * The verification report as a page people read (the console's 'Verification report' link, the recipient's
 * verification_url): plain server-rendered HTML, everything escaped, no script, times in the organisation's zone.
 */

const VALID = 'Valid';
const NOT_VALID = 'Not valid';

const status = (valid: boolean) =>
  `<span class="status ${valid ? 'valid' : 'invalid'}" data-testid="status">${valid ? VALID : NOT_VALID}</span>`;

function revocationText(r: RevocationStatus, when: (iso: string | null) => string): string {
  if (r.status === 'no data') return `${r.subject} (${r.role}): no revocation data in the document`;
  const time = r.source === 'OCSP' ? `produced ${when(r.producedAt)}` : `issued ${when(r.thisUpdate)}`;
  const revoked = r.status === 'revoked' ? ` on ${when(r.revokedAt)}` : '';
  return `${r.subject} (${r.role}): ${r.status}${revoked}, by ${r.source} ${time}${r.verified ? '' : ' (its signature does not verify)'}`;
}

function details(items: string[]): string {
  return items.length ? `<ul class="details">${items.map((i) => `<li>${e(i)}</li>`).join('')}</ul>` : '';
}

function signatureRow(s: SignatureReport, when: (iso: string | null) => string): string {
  const facts = [
    s.timestamp
      ? `Timestamp: ${when(s.timestamp.time)} by ${s.timestamp.tsa ?? 'an unknown authority'}`
      : 'No timestamp',
    `Certificate chain: ${s.chain.status === 'trusted' ? s.chain.path.join(' → ') : `${s.chain.status}${s.chain.reason ? ` (${s.chain.reason})` : ''}`}`,
    ...s.revocation.map((r) => `Revocation: ${revocationText(r, when)}`),
    ...(s.at ? [`At ${when(s.at.date)}: ${s.at.valid ? 'would still validate' : 'would not validate'}`] : []),
  ];
  return `<tr data-testid="signature">
  <td>${e(s.signer ?? '?')}</td>
  <td>${e(s.method ?? '-')}</td>
  <td>${e(s.level ?? '-')}</td>
  <td>${e(when(s.signedAt))}${s.signedAtSource === 'timestamp' ? ' <span class="note">(timestamp)</span>' : ''}</td>
  <td>${status(s.valid)}</td>
</tr>
<tr class="more"><td colspan="5">${details(facts)}${s.problems.length ? `<ul class="problems">${s.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul>` : ''}</td></tr>`;
}

function timestampRow(d: DocumentTimestampReport, when: (iso: string | null) => string): string {
  return `<tr data-testid="document-timestamp">
  <td>${e(when(d.time))}</td>
  <td>${e(d.tsa ?? '?')}</td>
  <td>${e(d.chain.status)}</td>
  <td>${status(d.valid)}</td>
</tr>${d.problems.length ? `<tr class="more"><td colspan="4"><ul class="problems">${d.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul></td></tr>` : ''}`;
}

export function verificationPage(report: VerificationReport, org: { name: string; timeZone: string }): string {
  const when = (iso: string | null) => (iso ? formatDateTime(iso, org.timeZone) : '?');
  const { dss } = report;
  const summary = report.ok
    ? 'Every signature is valid and the audit trail is intact.'
    : 'Not every check passed: see the reasons below.';
  const docProblems = report.problems.filter((p) => /^the document|^the audit/.test(p));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(Messages.verificationReport)} · Ref ID ${report.refId}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#fafafa;color:#212121}
main{max-width:980px;margin:0 auto;padding:24px}
h1{color:${Brand.primary};margin:0 0 8px}
h2{color:${Brand.primaryDark};margin-top:28px;font-size:1.15rem}
.summary{padding:12px 16px;border-radius:6px;font-weight:600}
.summary.ok{background:#e8f5e9;color:#1b5e20}.summary.bad{background:#ffebee;color:#b71c1c}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{color:#616161}dd{margin:0}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:8px;border-bottom:1px solid #e0e0e0;vertical-align:top}
th{background:${Brand.tint}}
tr.more td{border-bottom:2px solid #e0e0e0;padding-top:0;font-size:.9rem;color:#424242}
.status{font-weight:700}.status.valid{color:#2e7d32}.status.invalid{color:#c62828}
.note{color:#757575;font-size:.85rem}.problems{color:#c62828}
ul{margin:4px 0;padding-left:20px}code{font-size:.85rem;overflow-wrap:anywhere}
</style>
</head>
<body>
<main>
<h1>${e(Messages.verificationReport)}</h1>
<p class="summary ${report.ok ? 'ok' : 'bad'}" data-testid="summary">${e(summary)}</p>
<dl>
<dt>Organisation</dt><dd>${e(org.name)}</dd>
<dt>Ref ID</dt><dd>${report.refId}</dd>
<dt>Document</dt><dd>${e(report.filename)}<br><code>SHA-256 ${e(report.documentSha256)}</code></dd>
<dt>Checked</dt><dd>${e(when(report.checkedAt))}</dd>
</dl>
<h2>Signatures</h2>
<table>
<thead><tr><th>Signer</th><th>Method</th><th>Level</th><th>Signed at</th><th>Status</th></tr></thead>
<tbody>
${report.signatures.map((s) => signatureRow(s, when)).join('\n')}
</tbody>
</table>
${
  report.documentTimestamps.length
    ? `<h2>Document timestamps</h2>
<table>
<thead><tr><th>Time</th><th>Timestamp authority</th><th>Chain</th><th>Status</th></tr></thead>
<tbody>
${report.documentTimestamps.map((d) => timestampRow(d, when)).join('\n')}
</tbody>
</table>`
    : ''
}
<h2>Validation data</h2>
<p>${
    dss.present
      ? `The document carries ${dss.certificates} certificates, ${dss.ocsps} OCSP responses and ${dss.crls} CRLs for checking its signatures later.`
      : 'The document carries no validation data (DSS).'
  }</p>
<h2>Audit trail</h2>
<p>${report.audit.events} events; the hash chain is ${report.audit.intact ? 'intact' : 'BROKEN'}.${
    report.audit.lastHash ? ` Last hash <code>${e(report.audit.lastHash)}</code>.` : ''
  }</p>
${details(docProblems)}
<p class="note">Trusted certificates: ${e(report.trustAnchors.join(', ') || 'none')}. Levels are PAdES baseline levels (ETSI EN 319 142-1): B-B signed, B-T with a trusted time, B-LT with the certificates and revocation data to check it later, B-LTA under an archive timestamp.</p>
</main>
</body>
</html>
`;
}
