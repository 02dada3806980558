import { Messages } from '@esign/contract';
import { Chip, Tooltip } from '@mui/material';
import { readSession } from '../session';

/** The test/live badge; the mode only labels the dashboard (spec section 1). */
const ModeBadge = () => {
  const live = readSession().status === 'live';
  return (
    <Tooltip title={live ? Messages.liveModeTooltip : Messages.testModeTooltip} arrow>
      <Chip
        data-testid="mode-badge"
        label={live ? Messages.liveBadge : Messages.testBadge}
        color={live ? 'success' : 'warning'}
        size="small"
        sx={{ fontWeight: 700, letterSpacing: 1 }}
      />
    </Tooltip>
  );
};

export default ModeBadge;
