import { StaffRoutes } from '@esign/contract';
import MailOutlineIcon from '@mui/icons-material/MailOutline';
import { Button } from '@mui/material';
import { useNavigate } from 'react-router-dom';
import { readSession } from '../session';
import { useText } from '../i18n/useText';

/**
 * A link to the dev outbox for an organisation in test mode (trying the product, where messages are kept rather than
 * sent). It asks the server nothing: only the Outbox page itself reads /dev/outbox, and says so when this server
 * keeps none (in production, or from another machine).
 */
const OutboxLink = () => {
  const t = useText();
  const navigate = useNavigate();
  if (readSession().status !== 'test') return null;
  return (
    <Button startIcon={<MailOutlineIcon />} onClick={() => navigate(StaffRoutes.outbox)}>
      {t('esign.outboxHeading')}
    </Button>
  );
};

export default OutboxLink;
