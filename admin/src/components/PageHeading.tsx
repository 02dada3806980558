import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A page title with optional actions on the right, shared by the staff pages. */
const PageHeading = ({ title, children }: { title: string; children?: ReactNode }) => (
  <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, my: 2 }}>
    <Typography component="h1" variant="h5" sx={{ flex: 1, minWidth: 200 }}>
      {title}
    </Typography>
    {children}
  </Box>
);

export default PageHeading;
