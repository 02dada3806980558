import { Messages, StaffRoutes } from '@esign/contract';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DraftsIcon from '@mui/icons-material/Drafts';
import LogoutIcon from '@mui/icons-material/Logout';
import SettingsIcon from '@mui/icons-material/Settings';
import { Box, Button } from '@mui/material';
import type { ReactNode } from 'react';
import { AppBar, Layout, LoadingIndicator, Menu, useLogout } from 'react-admin';
import { Navigate, useLocation } from 'react-router-dom';
import { OrganisationProvider } from '../organisation/OrganisationContext';
import { isStaffPath } from '../routes';
import { currentOrgId, hasSession } from '../session';
import OrgLogo from './OrgLogo';
import { useInactivityLogout } from './useInactivityLogout';

const SignOutButton = () => {
  const logout = useLogout();
  return (
    <Button color="inherit" startIcon={<LogoutIcon />} onClick={() => void logout({}, undefined, false)}>
      {Messages.signOut}
    </Button>
  );
};

const StaffAppBar = () => (
  <AppBar
    color="primary"
    userMenu={false}
    toolbar={
      <>
        <LoadingIndicator />
        <SignOutButton />
      </>
    }
  >
    <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', py: 0.5 }}>
      <Box sx={{ bgcolor: 'common.white', borderRadius: 1, px: 1, py: 0.5 }}>
        <OrgLogo orgId={currentOrgId()} height={32} />
      </Box>
    </Box>
  </AppBar>
);

const StaffMenu = () => (
  <Menu>
    <Menu.Item to={StaffRoutes.dashboard} primaryText={Messages.navDashboard} leftIcon={<DashboardIcon />} />
    <Menu.Item to={StaffRoutes.drafts} primaryText={Messages.navDrafts} leftIcon={<DraftsIcon />} />
    <Menu.Item to={StaffRoutes.settings} primaryText={Messages.navSettings} leftIcon={<SettingsIcon />} />
  </Menu>
);

const SignedInLayout = ({ children }: { children: ReactNode }) => {
  useInactivityLogout();
  return (
    <OrganisationProvider>
      <Layout appBar={StaffAppBar} menu={StaffMenu}>
        {children}
      </Layout>
    </OrganisationProvider>
  );
};

/**
 * The staff layout: sidebar (Dashboard, Drafts, Settings), top bar with the logo and sign-out; for a stored session.
 * The organisation's settings are read once here and shared with every staff page (OrganisationProvider).
 * An unknown address goes to /not-found before any session check, so it never turns into a sign-in prompt.
 * The session check is the same as authProvider.checkAuth, done synchronously so nothing flashes before the redirect
 * and the redirect replaces the history entry. A key the server no longer accepts is caught by checkError (401).
 */
const StaffLayout = ({ children }: { children: ReactNode }) => {
  const { pathname } = useLocation();
  if (!isStaffPath(pathname)) return <Navigate to={StaffRoutes.notFound} replace />;
  if (!hasSession()) return <Navigate to={StaffRoutes.signIn} replace />;
  return <SignedInLayout>{children}</SignedInLayout>;
};

export default StaffLayout;
