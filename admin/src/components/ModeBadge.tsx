import { Chip, Tooltip } from '@mui/material';
import { readSession } from '../session';
import { useText } from '../i18n/useText';

/** The test/live badge; the mode only labels the dashboard (spec section 1). */
const ModeBadge = () => {
  const t = useText();
  const live = readSession().status === 'live';
  return (
    <Tooltip title={live ? t('esign.liveModeTooltip') : t('esign.testModeTooltip')} arrow>
      <Chip
        data-testid="mode-badge"
        label={live ? t('esign.liveBadge') : t('esign.testBadge')}
        color={live ? 'success' : 'warning'}
        size="small"
        // Dark text on the orange of test mode: white on it is too faint to read (WCAG 1.4.3).
        sx={{ fontWeight: 700, letterSpacing: 1, ...(live ? {} : { color: 'rgba(0, 0, 0, 0.87)' }) }}
      />
    </Tooltip>
  );
};

export default ModeBadge;
