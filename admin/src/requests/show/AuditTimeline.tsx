import type { AuditTrailEvent, RequestListItem } from '@esign/contract';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import { Alert, Box, CircularProgress, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useDataProvider, useRecordContext } from 'react-admin';
import { failureText } from '../../api';
import type { ConsoleDataProvider } from '../../dataProvider';
import type { TextKey } from '../../i18n/catalogue';
import { en } from '../../i18n/en';
import { useText } from '../../i18n/useText';
import { useFormatTime } from '../../organisation/OrganisationContext';
import Section from './Section';

/** The events the catalogue names; any other is shown by its own name ('party.something'). */
const NAMED_EVENTS = new Set(Object.keys(en.console.events));

/**
 * Who, as a person reads it: a party ('party:2') by its name and e-mail, the system's own events as such; staff users
 * and API keys by the name the trail keeps.
 */
const useActorText = (record: RequestListItem | undefined) => {
  const t = useText();
  return (actor: string): string => {
    const order = /^party:(\d+)$/.exec(actor)?.[1];
    const party = order ? record?.data.find((p) => p.order === Number(order)) : undefined;
    if (party) return `${party.name} (${party.email})`;
    if (actor === 'system') return t('console.request.system');
    return actor;
  };
};

/** The details worth a line: plain values of the event's data (the method chosen, a remark, a country, …). */
const detailsOf = (data: AuditTrailEvent['data']): string =>
  Object.entries(data ?? {})
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value) && String(value).length <= 200)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(' · ');

/**
 * The request's audit trail (GET /api/requests/{refId}/audit) as a timeline: when, what, who and from where, oldest
 * first, with the verdict on its hash chain (the events are chained; the last hash is the one the certificate of
 * completion prints).
 */
const AuditTimeline = () => {
  const record = useRecordContext<RequestListItem>();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const t = useText();
  const formatTime = useFormatTime();
  const actorText = useActorText(record);
  const refId = record?.refId;
  const { data, error, isPending } = useQuery({
    queryKey: ['requests', 'audit', refId],
    queryFn: () => dataProvider.audit(refId as number),
    enabled: refId !== undefined,
  });
  return (
    <Section title={t('console.request.timeline')} intro={t('console.request.timelineIntro')} testId="audit-trail">
      {isPending && <CircularProgress size={24} aria-label={t('console.request.timeline')} />}
      {error && <Alert severity="error">{failureText(error)}</Alert>}
      {data && (
        <>
          <Alert
            severity={data.chain.intact ? 'success' : 'error'}
            icon={data.chain.intact ? <CheckCircleIcon /> : <ErrorIcon />}
            sx={{ mb: 2 }}
            data-testid="chain-verdict"
            data-intact={data.chain.intact}
          >
            {t(data.chain.intact ? 'console.request.chainIntact' : 'console.request.chainBroken')}
            {data.chain.lastHash && (
              <Typography variant="caption" component="div" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
                {t('console.request.lastHash', { hash: data.chain.lastHash })}
              </Typography>
            )}
          </Alert>
          {data.events.length === 0 && <Typography color="text.secondary">{t('console.request.noEvents')}</Typography>}
          <Box component="ol" sx={{ listStyle: 'none', m: 0, p: 0 }}>
            {data.events.map((event, index) => {
              const details = detailsOf(event.data);
              return (
                <Box
                  component="li"
                  key={event.hash}
                  data-testid="audit-event"
                  data-type={event.type}
                  sx={{
                    position: 'relative',
                    pl: 3,
                    pb: index === data.events.length - 1 ? 0 : 2,
                    borderLeft: 2,
                    borderColor: 'primary.light',
                    ml: 1,
                    '&::before': {
                      content: '""',
                      position: 'absolute',
                      left: -7,
                      top: 4,
                      width: 12,
                      height: 12,
                      borderRadius: '50%',
                      bgcolor: 'primary.main',
                    },
                  }}
                >
                  <Typography variant="caption" color="text.secondary" component="div">
                    <time dateTime={event.at}>{formatTime(event.at)}</time>
                  </Typography>
                  <Typography sx={{ fontWeight: 600 }} data-testid="audit-what">
                    {NAMED_EVENTS.has(event.type) ? t(`console.events.${event.type}` as TextKey) : event.type}
                  </Typography>
                  <Typography variant="body2" data-testid="audit-who">
                    {t('console.request.who')}: {actorText(event.actor)}
                    {event.ip && (
                      <>
                        {' · '}
                        {t('console.request.from')}: <span data-testid="audit-from">{event.ip}</span>
                      </>
                    )}
                  </Typography>
                  {details && (
                    <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                      {details}
                    </Typography>
                  )}
                </Box>
              );
            })}
          </Box>
        </>
      )}
    </Section>
  );
};

export default AuditTimeline;
