import { Box, Typography } from '@mui/material';
import { useText } from '../i18n/useText';

/** /not-found: every unknown route ends here (public, no layout). */
const NotFound = () => {
  const t = useText();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 3 }}>
      <Typography component="h1" variant="h5" color="text.secondary" sx={{ textAlign: 'center' }}>
        {t('esign.notFoundPage')}
      </Typography>
    </Box>
  );
};

export default NotFound;
