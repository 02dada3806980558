import type { RequestListItem, RequestStatus } from '@esign/contract';
import { Box, Chip, LinearProgress, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { useText } from '../i18n/useText';

type Tone = 'primary' | 'success' | 'error' | 'warning' | 'inherit';

/**
 * How a request's state reads at a glance (issue 18, point 2): in progress in the theme's purple, completed green,
 * rejected red, expired amber, cancelled grey; a seal failure being retried amber too. The status text beside the bar
 * names it ('Rejected', 'Expired', 'Cancelled', 'Completed', 'n of m signed').
 */
const TONES: Record<RequestStatus, Tone> = {
  draft: 'primary',
  'in-progress': 'primary',
  completed: 'success',
  rejected: 'error',
  expired: 'warning',
  cancelled: 'inherit',
};

/**
 * The palette entry of a tone, for the status text. Amber text is darker than the palette's warning.dark (3.8:1 on
 * white, which axe refuses for a caption; issue 24's journeys met it on a row whose seal is being retried): 7:1.
 */
const TEXT: Record<Tone, string> = {
  primary: 'text.secondary',
  success: 'success.dark',
  error: 'error.main',
  warning: '#8a3d00',
  inherit: 'text.disabled',
};

/**
 * The row's progress: signers done (status) of signers (max-status), with the status text; a request whose documents
 * retention deleted (issue 24) also says 'Archived', beside the status text, which stays as it was.
 */
const ProgressField = (_props: { label?: string }) => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  if (!record) return null;
  const max = record['max-status'] || 1;
  const value = Math.round((100 * record.status) / max);
  const tone: Tone = record.seal_error ? 'warning' : (TONES[record.request_status] ?? 'primary');
  const ended = tone !== 'primary';
  return (
    <Box sx={{ minWidth: 180 }} data-testid="progress" data-status={record.request_status}>
      <LinearProgress
        variant="determinate"
        value={value}
        color={tone}
        sx={{
          height: 8,
          borderRadius: 4,
          // Cancelled: a grey bar on a grey track (MUI's 'inherit' takes the text colour).
          ...(tone === 'inherit' ? { color: 'text.disabled', bgcolor: 'action.disabledBackground' } : {}),
        }}
        aria-label={record.status_text}
      />
      <Typography variant="caption" color={TEXT[tone]} sx={{ fontWeight: ended ? 700 : 400 }} data-testid="status-text">
        {record.status_text}
      </Typography>
      {record.archived && (
        <Chip
          size="small"
          variant="outlined"
          label={t('console.request.archived')}
          sx={{ ml: 1, height: 20 }}
          data-testid="archived"
        />
      )}
    </Box>
  );
};

export default ProgressField;
