import { Backdrop, CircularProgress, Typography } from '@mui/material';
import { useText } from '../i18n/useText';

/** A full-screen loader with a text (spec: 'PLEASE WAIT...', 'Deleting selected row(s)', …). */
const WaitBackdrop = ({ open, text }: { open: boolean; text?: string }) => {
  const t = useText();
  return (
    <Backdrop
      open={open}
      sx={{ color: 'common.white', zIndex: (theme) => theme.zIndex.modal + 1, flexDirection: 'column', gap: 2 }}
    >
      <CircularProgress color="inherit" />
      <Typography role="status" data-testid="wait-text">
        {text ?? t('esign.pleaseWait')}
      </Typography>
    </Backdrop>
  );
};

export default WaitBackdrop;
