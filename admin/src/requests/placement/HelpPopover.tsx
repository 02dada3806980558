import { Messages } from '@esign/contract';
import HelpOutlineIcon from '@mui/icons-material/HelpOutline';
import { Box, IconButton, Popover, Typography } from '@mui/material';
import { useState } from 'react';

/** The "?" beside the placement controls: how to place a box and choose its pages. */
const HelpPopover = () => {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <IconButton
        color="primary"
        aria-label={Messages.placementHelpDrag}
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
            {Messages.placementHelpDrag}
          </Typography>
          <Typography variant="body2">{Messages.placementHelpPages}</Typography>
        </Box>
      </Popover>
    </>
  );
};

export default HelpPopover;
