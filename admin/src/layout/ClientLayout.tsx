import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import { currentOrgId } from '../session';
import OrgLogo from './OrgLogo';

/** The client layout of the specification: only the organisation logo above the content. */
const ClientLayout = ({ children }: { children?: ReactNode }) => (
  <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
    <Box component="header" sx={{ p: 2, display: 'flex', justifyContent: 'center' }}>
      <OrgLogo orgId={currentOrgId()} height={48} />
    </Box>
    <Box component="main">{children}</Box>
  </Box>
);

export default ClientLayout;
