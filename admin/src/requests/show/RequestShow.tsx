import type { RequestListItem } from '@esign/contract';
import { Alert, Box, Card, CardContent, Chip, Link, Stack, Typography } from '@mui/material';
import { Show, useRecordContext } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { StaffRoutes } from '@esign/contract';
import { useText } from '../../i18n/useText';
import { useFormatTime } from '../../organisation/OrganisationContext';
import ProgressField from '../ProgressField';
import AuditTimeline from './AuditTimeline';
import DocumentsPanel from './DocumentsPanel';
import PartiesPanel from './PartiesPanel';
import RequestShowActions from './RequestShowActions';
import VerificationPanel from './VerificationPanel';

/** The page's title (react-admin's <Title>, in the top bar and the document title). */
const ShowTitle = () => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  return <>{record ? t('console.request.title', { refId: record.refId }) : ''}</>;
};

/** Ref ID, file, progress and the times it was sent and completed; a failed seal says why. */
const Summary = () => {
  const record = useRecordContext<RequestListItem>();
  const t = useText();
  const formatTime = useFormatTime();
  if (!record) return null;
  return (
    <Card component="section" aria-labelledby="request-summary">
      <CardContent>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2 }}>
          <Typography id="request-summary" component="h1" variant="h5" sx={{ flex: '1 1 240px' }}>
            {t('console.request.title', { refId: record.refId })}
          </Typography>
          <Chip label={record.filename} variant="outlined" data-testid="request-file" />
          <ProgressField />
        </Box>
        <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5 }}>
          <Typography component="dt" color="text.secondary">
            {t('console.request.submittedAt')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }} data-testid="submitted-at">
            {formatTime(record.submitted_at ?? record.timestamp)}
          </Typography>
          {record.completed_at && (
            <>
              <Typography component="dt" color="text.secondary">
                {t('console.request.completedAt')}
              </Typography>
              <Typography component="dd" sx={{ m: 0 }} data-testid="completed-at">
                {formatTime(record.completed_at)}
              </Typography>
            </>
          )}
        </Box>
        {record.seal_error && (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="seal-error">
            {t('console.request.sealFailed', { error: record.seal_error })}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
};

/**
 * /requests/{refId}/show (issue 22): a request's page. Its parties with status, method and times; its documents, the
 * certificate of completion and the verification report's page; the audit trail as a timeline (who, what, when, from
 * where) with the chain's verdict; the signature verification report (what esign-cli verify prints); and the actions:
 * resend (per party), duplicate, delete, cancel and, when the seal failed, seal again.
 */
const RequestShow = () => {
  const t = useText();
  return (
    <Box sx={{ my: 2 }}>
      <Link component={RouterLink} to={StaffRoutes.dashboard} sx={{ display: 'inline-block', mb: 1 }}>
        {t('console.request.back')}
      </Link>
      <Show title={<ShowTitle />} actions={<RequestShowActions />} component="div" sx={{ '& .RaShow-main': { mt: 0 } }}>
        <Stack spacing={2}>
          <Summary />
          <PartiesPanel />
          <DocumentsPanel />
          <AuditTimeline />
          <VerificationPanel />
        </Stack>
      </Show>
    </Box>
  );
};

export default RequestShow;
