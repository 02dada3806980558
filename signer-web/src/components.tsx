import { Messages, logoPath } from '@esign/contract';
import { useState } from 'react';
import type { ReactNode } from 'react';

/** The organisation logo; hidden when the organisation has none. */
export const OrgLogo = ({ orgId }: { orgId?: string }) => {
  const [failed, setFailed] = useState(false);
  if (!orgId || failed) return null;
  return (
    <img
      className="org-logo"
      src={logoPath(orgId)}
      alt={Messages.organisationLogoAlt}
      data-testid="org-logo"
      onError={() => setFailed(true)}
    />
  );
};

/** Page frame: the logo bar (when the page belongs to an organisation) and a centred card. */
export const Shell = ({ orgId, children }: { orgId?: string; children: ReactNode }) => (
  <div className="shell">
    {orgId ? (
      <header className="shell-header">
        <OrgLogo orgId={orgId} />
      </header>
    ) : null}
    <main className="card">{children}</main>
  </div>
);

/** The 'PLEASE WAIT...' state shown while a page loads. */
export const PleaseWait = () => (
  <div className="please-wait" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    <p>{Messages.pleaseWait}</p>
  </div>
);
