import { StaffRoutes } from '@esign/contract';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutline';
import { Card, CardContent, Link, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { useText } from '../i18n/useText';

/** /mail-sent: confirmation after a request is submitted. */
const MailSent = () => {
  const t = useText();
  return (
    <Card sx={{ mt: 4, mx: 'auto', maxWidth: 480, textAlign: 'center' }}>
      <CardContent sx={{ p: 4 }}>
        <CheckCircleOutlineIcon color="primary" sx={{ fontSize: 64 }} />
        <Typography component="h1" variant="h5" sx={{ my: 2 }}>
          {t('esign.mailSent')}
        </Typography>
        <Link component={RouterLink} to={StaffRoutes.dashboard}>
          {t('esign.goToDashboard')}
        </Link>
      </CardContent>
    </Card>
  );
};

export default MailSent;
