import { Messages, logoPath } from '@esign/contract';
import { useState } from 'react';

/** The organisation logo from the docs logos path; hidden when the organisation has none. */
const OrgLogo = ({ orgId, height = 36 }: { orgId: string | null; height?: number }) => {
  const [failed, setFailed] = useState(false);
  if (!orgId || failed) return null;
  return (
    <img
      src={logoPath(orgId)}
      alt={Messages.organisationLogoAlt}
      data-testid="org-logo"
      style={{ height, width: 'auto', maxWidth: 180, objectFit: 'contain', display: 'block' }}
      onError={() => setFailed(true)}
    />
  );
};

export default OrgLogo;
