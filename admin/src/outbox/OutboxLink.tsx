import { Messages, StaffRoutes } from '@esign/contract';
import MailOutlineIcon from '@mui/icons-material/MailOutline';
import { Button } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';

/** A link to the dev outbox, shown only where the server keeps one (not in production, on this machine). */
const OutboxLink = () => {
  const navigate = useNavigate();
  const [available, setAvailable] = useState(false);
  useEffect(() => {
    let live = true;
    fetch('/dev/outbox?to=-', { headers: { Accept: 'application/json' } }).then(
      (response) => live && setAvailable(response.ok),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!available) return null;
  return (
    <Button startIcon={<MailOutlineIcon />} onClick={() => navigate(StaffRoutes.outbox)}>
      {Messages.outboxHeading}
    </Button>
  );
};

export default OutboxLink;
