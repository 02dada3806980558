import RefreshIcon from '@mui/icons-material/Refresh';
import { Box, Button, Card, CardContent, Chip, Link, Stack, TextField, Typography } from '@mui/material';
import { Fragment, useCallback, useEffect, useState } from 'react';
import NoData from '../components/NoData';
import PageHeading from '../components/PageHeading';
import { useFormatTime } from '../organisation/OrganisationContext';
import { useText } from '../i18n/useText';

interface OutboxEntry {
  id: number;
  channel: 'email' | 'sms';
  kind: string;
  to: string;
  subject: string | null;
  text: string;
  status: string;
  createdAt: string;
  refId: number | null;
}

const URL_PATTERN = /(https?:\/\/[^\s<>"]+)/g;

/** A message's text with its links clickable (sign links, document links). */
const Linked = ({ text }: { text: string }) => (
  <>
    {text.split(URL_PATTERN).map((part, i) =>
      i % 2 === 1 ? (
        <Link key={i} href={part} target="_blank" rel="noopener noreferrer" sx={{ wordBreak: 'break-all' }}>
          {part}
        </Link>
      ) : (
        <Fragment key={i}>{part}</Fragment>
      ),
    )}
  </>
);

/**
 * /outbox: the dev outbox of the embedded default, read-only. Without SMTP_URL / SMS_URL the invitations, OTPs and
 * other messages are kept here instead of being sent, so a person trying the product can follow a request through.
 */
const Outbox = () => {
  const t = useText();
  const [to, setTo] = useState('');
  const [entries, setEntries] = useState<OutboxEntry[] | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const formatTime = useFormatTime();

  const load = useCallback(async () => {
    const query = to.trim() ? `?to=${encodeURIComponent(to.trim())}` : '';
    try {
      const response = await fetch(`/dev/outbox${query}`, { headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error(String(response.status));
      setEntries((await response.json()) as OutboxEntry[]);
      setUnavailable(false);
    } catch {
      setUnavailable(true);
    }
  }, [to]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={t('esign.outboxHeading')}>
          <TextField
            size="small"
            label={t('console.outbox.recipient')}
            value={to}
            onChange={(e) => setTo(e.target.value)}
          />
          <Button startIcon={<RefreshIcon />} onClick={() => void load()}>
            {t('console.common.refresh')}
          </Button>
        </PageHeading>
        {unavailable && <Typography color="error">{t('console.outbox.unavailable')}</Typography>}
        {entries && entries.length === 0 && <NoData text={t('esign.outboxEmpty')} />}
        <Stack spacing={2}>
          {entries?.map((m) => (
            <Box
              key={m.id}
              data-testid="outbox-message"
              sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 2 }}
            >
              <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
                <Chip
                  size="small"
                  label={m.channel.toUpperCase()}
                  color={m.channel === 'email' ? 'primary' : 'secondary'}
                />
                <Chip size="small" variant="outlined" label={m.kind} />
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {m.to}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {formatTime(m.createdAt)} {m.refId ? `· ${t('console.outbox.refId', { refId: m.refId })}` : ''}
                </Typography>
              </Box>
              {m.subject && <Typography sx={{ fontWeight: 600 }}>{m.subject}</Typography>}
              <Typography component="pre" sx={{ whiteSpace: 'pre-wrap', fontFamily: 'inherit', m: 0, fontSize: 14 }}>
                <Linked text={m.text} />
              </Typography>
            </Box>
          ))}
        </Stack>
      </CardContent>
    </Card>
  );
};

export default Outbox;
