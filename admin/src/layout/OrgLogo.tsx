import { logoPath } from '@esign/contract';
import { useState } from 'react';
import { useText } from '../i18n/useText';

/**
 * The organisation logo from the docs logos path (a PNG, JPEG or SVG: the server sends its type); hidden when the
 * organisation has none. `version` (set after an upload) makes the browser read the new logo at once.
 */
const OrgLogo = ({ orgId, height = 36, version }: { orgId: string | null; height?: number; version?: string }) => {
  const [failed, setFailed] = useState<string | null>(null);
  const t = useText();
  const src = orgId ? `${logoPath(orgId)}${version ? `?v=${encodeURIComponent(version)}` : ''}` : null;
  if (!src || failed === src) return null;
  return (
    <img
      src={src}
      alt={t('esign.organisationLogoAlt')}
      data-testid="org-logo"
      style={{ height, width: 'auto', maxWidth: 180, objectFit: 'contain', display: 'block' }}
      onError={() => setFailed(src)}
    />
  );
};

export default OrgLogo;
