import { Avatar, Box, Card, CardContent, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * The public pages' card (sign-in, set-password): centred on the console's purple gradient, an icon and the page's
 * title above its content; `top` sits in the card's top right corner (the language switch).
 */
const PublicCard = ({
  icon,
  title,
  maxWidth,
  top,
  children,
}: {
  icon: ReactNode;
  title: string;
  maxWidth: number;
  top?: ReactNode;
  children: ReactNode;
}) => (
  <Box
    component="main"
    sx={{
      minHeight: '100vh',
      display: 'flex',
      alignItems: 'center',
      justifyContent: 'center',
      p: 2,
      background: 'linear-gradient(135deg, #311B92 0%, #5E35B1 55%, #9575CD 100%)',
    }}
  >
    <Card sx={{ width: '100%', maxWidth }} elevation={8}>
      <CardContent sx={{ p: 4 }}>
        {top && <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: -2, mr: -2 }}>{top}</Box>}
        <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', mb: 2 }}>
          <Avatar sx={{ bgcolor: 'primary.main', mb: 1 }}>{icon}</Avatar>
          <Typography component="h1" variant="h5">
            {title}
          </Typography>
        </Box>
        {children}
      </CardContent>
    </Card>
  </Box>
);

export default PublicCard;
