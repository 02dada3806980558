import { Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { useFormatTime } from '../organisation/OrganisationContext';

/** A list column with a time in the organisation's zone ('25 Nov 2026, 12:58 am IST'). */
const TimeField = ({ source }: { source: string; label?: string; sortable?: boolean }) => {
  const record = useRecordContext<Record<string, unknown>>();
  const format = useFormatTime();
  const value = record?.[source];
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  return (
    <Typography component="span" variant="body2" data-testid="timestamp" sx={{ whiteSpace: 'nowrap' }}>
      {format(value)}
    </Typography>
  );
};

export default TimeField;
