import { Messages } from '@esign/contract';
import { Box, Typography } from '@mui/material';

/** /not-found: every unknown route ends here (public, no layout). */
const NotFound = () => (
  <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 3 }}>
    <Typography component="h1" variant="h5" color="text.secondary" sx={{ textAlign: 'center' }}>
      {Messages.notFoundPage}
    </Typography>
  </Box>
);

export default NotFound;
