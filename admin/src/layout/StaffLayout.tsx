import { StaffRoutes } from '@esign/contract';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DraftsIcon from '@mui/icons-material/Drafts';
import LogoutIcon from '@mui/icons-material/Logout';
import PersonSearchIcon from '@mui/icons-material/PersonSearch';
import SettingsIcon from '@mui/icons-material/Settings';
import { Box, Button } from '@mui/material';
import type { ReactNode } from 'react';
import { AppBar, Layout, LoadingIndicator, Menu, useLogout } from 'react-admin';
import { Navigate, useLocation } from 'react-router-dom';
import { useIsAdmin } from '../administration/RequireAdmin';
import apiKeys from '../api-keys';
import deliveries from '../deliveries';
import { useText } from '../i18n/useText';
import { OrganisationProvider, useOrganisation } from '../organisation/OrganisationContext';
import { isStaffPath } from '../routes';
import { currentOrgId, hasSession } from '../session';
import users from '../users';
import webhooks from '../webhooks';
import LanguageSwitch from './LanguageSwitch';
import OrgLogo from './OrgLogo';
import { useInactivityLogout } from './useInactivityLogout';

const SignOutButton = () => {
  const logout = useLogout();
  const t = useText();
  return (
    <Button color="inherit" startIcon={<LogoutIcon />} onClick={() => void logout({}, undefined, false)}>
      {t('esign.signOut')}
    </Button>
  );
};

/** The logo, read again after an administrator uploads a new one on /settings. */
const TopBarLogo = () => {
  const { logoVersion } = useOrganisation();
  return <OrgLogo orgId={currentOrgId()} height={32} version={logoVersion ? String(logoVersion) : undefined} />;
};

const StaffAppBar = () => (
  <AppBar
    color="primary"
    userMenu={false}
    toolbar={
      <>
        <LanguageSwitch />
        <LoadingIndicator />
        <SignOutButton />
      </>
    }
  >
    <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', py: 0.5 }}>
      <Box sx={{ bgcolor: 'common.white', borderRadius: 1, px: 1, py: 0.5 }}>
        <TopBarLogo />
      </Box>
    </Box>
  </AppBar>
);

/**
 * The sidebar: Dashboard and Drafts (the specification's), and for an administrator the administration (users, API
 * keys, webhooks, deliveries, a signer's data, settings). Staff see none of it.
 */
const StaffMenu = () => {
  const t = useText();
  const { isAdmin } = useIsAdmin();
  return (
    <Menu>
      <Menu.Item to={StaffRoutes.dashboard} primaryText={t('esign.navDashboard')} leftIcon={<DashboardIcon />} />
      <Menu.Item to={StaffRoutes.drafts} primaryText={t('esign.navDrafts')} leftIcon={<DraftsIcon />} />
      {isAdmin && (
        <>
          <Menu.Item to={StaffRoutes.users} primaryText={t('console.layout.users')} leftIcon={<users.icon />} />
          <Menu.Item to={StaffRoutes.apiKeys} primaryText={t('console.layout.apiKeys')} leftIcon={<apiKeys.icon />} />
          <Menu.Item
            to={StaffRoutes.webhooks}
            primaryText={t('console.layout.webhooks')}
            leftIcon={<webhooks.icon />}
          />
          <Menu.Item
            to={StaffRoutes.deliveries}
            primaryText={t('console.layout.deliveries')}
            leftIcon={<deliveries.icon />}
          />
          <Menu.Item
            to={StaffRoutes.signerData}
            primaryText={t('console.layout.signerData')}
            leftIcon={<PersonSearchIcon />}
          />
          <Menu.Item to={StaffRoutes.settings} primaryText={t('esign.navSettings')} leftIcon={<SettingsIcon />} />
        </>
      )}
    </Menu>
  );
};

const SignedInLayout = ({ children }: { children: ReactNode }) => {
  useInactivityLogout();
  return (
    <OrganisationProvider>
      {/*
        A table wider than the page scrolls inside its grid, never the whole page under the sidebar: the grid's wrapper
        takes the width it is given (contain: its columns do not widen the page) and scrolls what does not fit.
      */}
      <Layout
        appBar={StaffAppBar}
        menu={StaffMenu}
        sx={{
          '& .RaLayout-content, & .RaShow-card, & .RaEdit-card, & .RaCreate-card, & .RaList-content': { minWidth: 0 },
          '& .RaDatagrid-tableWrapper': { overflowX: 'auto', contain: 'inline-size' },
        }}
      >
        {children}
      </Layout>
    </OrganisationProvider>
  );
};

/**
 * The staff layout: sidebar, top bar with the logo, the language and sign-out; for a stored session. The
 * organisation's settings are read once here and shared with every staff page (OrganisationProvider).
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
