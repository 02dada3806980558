import { StaffRoutes, WatchdogMessages } from '@esign/contract';
import type { WatchdogFinding, WatchdogRetryResult } from '@esign/contract';
import ReplayIcon from '@mui/icons-material/Replay';
import { Alert, AlertTitle, Box, Button, Chip, Link, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router-dom';
import { v1 } from '../api';
import { useIsAdmin } from '../administration/RequireAdmin';
import { useCall } from '../components/useCall';
import type { TextKey } from '../i18n/catalogue';
import { useMessageText, useText } from '../i18n/useText';

/** The open and reported findings (the resolved ones moved on), the latest seen first: one page is plenty. */
const FINDINGS_PATH = `/api/watchdog/findings?${new URLSearchParams({
  filter: JSON.stringify({ resolved: false }),
  range: JSON.stringify([0, 49]),
  sort: JSON.stringify(['last_seen_at', 'DESC']),
})}`;

const QUERY_KEY = ['watchdog', 'findings'] as const;

/** A request's page, from its Ref ID. */
const requestPath = (refId: number) => StaffRoutes.requestShow.replace(':id', String(refId));

/**
 * The dashboard's banner (issue 24; administrators only): the requests the watchdog found stuck, one line each (the
 * Ref ID linking to the request's page, the kind, what is wrong) with its Retry when the API can retry it, and a Retry
 * for all of them. After a retry the findings and the dashboard's rows are read again. Nothing at all when nothing is
 * stuck, so the dashboard stays the specification's.
 */
const WatchdogBanner = () => {
  const { isAdmin } = useIsAdmin();
  return isAdmin ? <Findings /> : null;
};

const Findings = () => {
  const t = useText();
  const messageText = useMessageText();
  const queryClient = useQueryClient();
  const { call, busy } = useCall();
  const { data } = useQuery({
    queryKey: QUERY_KEY,
    queryFn: () => v1<WatchdogFinding[]>(FINDINGS_PATH),
    // A banner is not worth an error toast: when the findings cannot be read, the dashboard shows as it always did.
    retry: false,
  });
  const findings = data ?? [];
  if (findings.length === 0) return null;
  const retryable = findings.filter((finding) => finding.retryable);

  const retry = async (targets: WatchdogFinding[]) => {
    for (const finding of targets) {
      await call(
        () => v1<WatchdogRetryResult>(`/api/watchdog/findings/${finding.id}/retry`, { method: 'POST' }),
        (answer) => answer.message,
      );
    }
    await queryClient.invalidateQueries({ queryKey: QUERY_KEY });
  };

  return (
    <Alert
      severity="warning"
      sx={{ mb: 2 }}
      data-testid="watchdog-banner"
      action={
        retryable.length > 1 ? (
          <Button color="inherit" startIcon={<ReplayIcon />} disabled={busy} onClick={() => void retry(retryable)}>
            {t('console.watchdog.retryAll')}
          </Button>
        ) : undefined
      }
    >
      <AlertTitle component="h2" sx={{ fontSize: '1rem' }}>
        {t('watchdog.bannerTitle')}
      </AlertTitle>
      <Typography variant="body2">{t('console.watchdog.intro', { smart_count: findings.length })}</Typography>
      <Box component="ul" sx={{ m: 0, mt: 1, pl: 2.5 }}>
        {findings.map((finding) => (
          <Box
            component="li"
            key={finding.id}
            sx={{ my: 0.5 }}
            data-testid="watchdog-finding"
            data-ref-id={finding.refId}
            data-kind={finding.kind}
          >
            <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 }}>
              <Link component={RouterLink} to={requestPath(finding.refId)} sx={{ fontWeight: 600 }}>
                {finding.refId}
              </Link>
              <Typography component="span" variant="body2">
                {finding.filename}
              </Typography>
              <Chip size="small" label={t(`console.watchdog.kinds.${finding.kind}` as TextKey)} />
              <Typography component="span" variant="body2" color="text.secondary">
                {t('console.watchdog.retries', { count: finding.retries })}
              </Typography>
              {finding.retryable && (
                <Button
                  size="small"
                  color="inherit"
                  variant="outlined"
                  startIcon={<ReplayIcon />}
                  disabled={busy}
                  aria-label={t('console.watchdog.retryOf', { refId: finding.refId })}
                  onClick={() => void retry([finding])}
                >
                  {t('watchdog.bannerRetry')}
                </Button>
              )}
            </Box>
            <Typography variant="body2">{messageText(finding.detail)}</Typography>
          </Box>
        ))}
      </Box>
      {/* Said once, for the findings only a signer can move (their detail says what to do instead). */}
      {findings.some((finding) => !finding.retryable) && (
        <Typography variant="body2" sx={{ mt: 1 }}>
          {messageText(WatchdogMessages.notRetryable)}
        </Typography>
      )}
    </Alert>
  );
};

export default WatchdogBanner;
