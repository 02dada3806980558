import { Messages } from '@esign/contract';
import { Backdrop, CircularProgress, Typography } from '@mui/material';

/** A full-screen loader with a text (spec: 'PLEASE WAIT...', 'Deleting selected row(s)', …). */
const WaitBackdrop = ({ open, text = Messages.pleaseWait }: { open: boolean; text?: string }) => (
  <Backdrop
    open={open}
    sx={{ color: 'common.white', zIndex: (theme) => theme.zIndex.modal + 1, flexDirection: 'column', gap: 2 }}
  >
    <CircularProgress color="inherit" />
    <Typography role="status" data-testid="wait-text">
      {text}
    </Typography>
  </Backdrop>
);

export default WaitBackdrop;
