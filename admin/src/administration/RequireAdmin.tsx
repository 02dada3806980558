import type { UserRole } from '@esign/contract';
import BlockIcon from '@mui/icons-material/Block';
import { Box, Card, CardContent, CircularProgress, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { usePermissions, useTranslate } from 'react-admin';
import { useText } from '../i18n/useText';

/** Whether the signed-in user is an organisation administrator (authProvider.getPermissions: GET /api/whoami). */
export function useIsAdmin(): { isAdmin: boolean; isPending: boolean } {
  const { permissions, isPending } = usePermissions<UserRole | undefined>();
  return { isAdmin: permissions === 'admin', isPending };
}

/** What a staff user sees at an administration page's address: a clear 'not allowed', nothing of the page. */
export const NotAllowed = () => {
  const t = useText();
  return (
    <Card sx={{ my: 4, mx: 'auto', maxWidth: 560 }} data-testid="not-allowed">
      <CardContent sx={{ p: 4, textAlign: 'center' }}>
        <BlockIcon color="error" sx={{ fontSize: 56 }} aria-hidden />
        <Typography component="h1" variant="h5" sx={{ my: 2 }}>
          {t('console.notAllowed.title')}
        </Typography>
        <Typography color="text.secondary">{t('console.notAllowed.text')}</Typography>
      </CardContent>
    </Card>
  );
};

/**
 * An administration page: shown to administrators only (the API refuses the others anyway). While the role is read, a
 * spinner; for anyone else, NotAllowed.
 */
export const RequireAdmin = ({ children }: { children: ReactNode }) => {
  const { isAdmin, isPending } = useIsAdmin();
  const translate = useTranslate();
  if (isPending)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
        <CircularProgress aria-label={translate('ra.page.loading')} />
      </Box>
    );
  return isAdmin ? <>{children}</> : <NotAllowed />;
};

/** A resource's page wrapped in RequireAdmin (for the administration resources' index.ts). */
export const adminOnly =
  <P extends object>(Page: (props: P) => ReactNode) =>
  (props: P) => (
    <RequireAdmin>
      <Page {...props} />
    </RequireAdmin>
  );
