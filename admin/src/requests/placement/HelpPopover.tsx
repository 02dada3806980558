import HelpOutlineIcon from '@mui/icons-material/HelpOutline';
import { Box, IconButton, Popover, Typography } from '@mui/material';
import { useState } from 'react';
import { useText } from '../../i18n/useText';

/** The "?" beside the placement controls: how to place a box and choose its pages. */
const HelpPopover = () => {
  const t = useText();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <IconButton
        color="primary"
        aria-label={t('esign.placementHelpDrag')}
        data-testid="placement-help"
        onClick={(event) => setAnchor(event.currentTarget)}
      >
        <HelpOutlineIcon />
      </IconButton>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      >
        <Box data-testid="placement-help-text" sx={{ p: 2, maxWidth: 360 }}>
          <Typography variant="body2" gutterBottom>
            {t('esign.placementHelpDrag')}
          </Typography>
          <Typography variant="body2">{t('esign.placementHelpPages')}</Typography>
        </Box>
      </Popover>
    </>
  );
};

export default HelpPopover;
