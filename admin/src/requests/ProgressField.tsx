import type { RequestListItem } from '@esign/contract';
import { Box, LinearProgress, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';

/** The row's progress: signers done (status) of signers (max-status), with the status text. */
const ProgressField = (_props: { label?: string }) => {
  const record = useRecordContext<RequestListItem>();
  if (!record) return null;
  const max = record['max-status'] || 1;
  const value = Math.round((100 * record.status) / max);
  return (
    <Box sx={{ minWidth: 180 }} data-testid="progress">
      <LinearProgress
        variant="determinate"
        value={value}
        color={record.seal_error ? 'warning' : record.request_status === 'completed' ? 'success' : 'primary'}
        sx={{ height: 8, borderRadius: 4 }}
        aria-label={record.status_text}
      />
      <Typography variant="caption" color="text.secondary">
        {record.status_text}
      </Typography>
    </Box>
  );
};

export default ProgressField;
