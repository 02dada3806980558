import { Messages } from '@esign/contract';
import type { PartyView, RequestListItem } from '@esign/contract';
import { Box, Button, Link, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { orgId, v1 } from '../api';
import { ConsoleTexts } from '../texts';
import { requestShowPath } from './paths';
import { useFormatTime } from '../organisation/OrganisationContext';
import { fill } from './placement/geometry';

const COLUMNS = [
  'Party name',
  'Email address',
  'Original document link',
  'Signed document link',
  'Sign Url',
  'Status',
  'Actions',
] as const;

const DocLink = ({ href, label }: { href: string; label: string }) => (
  <Link href={href} target="_blank" rel="noopener noreferrer">
    {label}
  </Link>
);

/** Sends the invitation again (only for a party in progress), with the catalogue's toasts. */
const ResendInvite = ({ party }: { party: PartyView }) => {
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const resend = async () => {
    setBusy(true);
    notify(Messages.sendingInvite, { type: 'info' });
    try {
      await v1(`/v1/resend_invite/${encodeURIComponent(orgId())}/${party.refId}/${party.order}`);
      notify(Messages.inviteSent, { type: 'success', autoHideDuration: 2000 });
      refresh();
    } catch {
      notify(Messages.inviteFailed, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button size="small" variant="outlined" disabled={busy} onClick={() => void resend()}>
      {Messages.resendInvite}
    </Button>
  );
};

/** The party's status in upper case; for a rejection, when it happened and the remark the party gave (issue 18). */
const PartyStatus = ({ party }: { party: PartyView }) => {
  const formatTime = useFormatTime();
  const rejected = party.status === 'rejected';
  return (
    <>
      <Typography
        variant="body2"
        component="span"
        sx={rejected ? { color: 'error.main', fontWeight: 700 } : undefined}
        data-testid="party-status"
      >
        {party.status.toUpperCase()}
      </Typography>
      {rejected && party.rejected_at && (
        <Typography variant="caption" component="div" color="text.secondary" data-testid="rejected-at">
          {fill(Messages.partyRejectedOn, { date: formatTime(party.rejected_at) })}
        </Typography>
      )}
      {rejected && party.remark && (
        <Typography
          variant="body2"
          component="div"
          data-testid="reject-remark"
          sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', maxWidth: 360 }}
        >
          {fill(Messages.partyRemark, { remark: party.remark })}
        </Typography>
      )}
    </>
  );
};

/**
 * The expanded row of a request or a draft: one line per party (spec section 2, Dashboard); under it, for a completed
 * request, the link to its verification report (issue 19: signatures, levels, timestamps, revocation data), and on the
 * dashboard (`details`) the link to the request's page (issue 22), so the row itself shows what the spec says.
 */
const PartyTable = ({ details = false }: { details?: boolean }) => {
  const record = useRecordContext<RequestListItem>();
  if (!record) return null;
  const report = record.request_status === 'completed' ? record.verification_url : null;
  return (
    <>
      <Parties record={record} />
      {(report || details) && (
        <Box sx={{ px: 2, py: 1, bgcolor: 'background.default', display: 'flex', gap: 3, flexWrap: 'wrap' }}>
          {report && (
            <Box component="span" data-testid="verification-report">
              <DocLink href={report} label={Messages.verificationReport} />
            </Box>
          )}
          {details && (
            <Link component={RouterLink} to={requestShowPath(record.refId)} data-testid="request-page-link">
              {ConsoleTexts.requestPageLink}
            </Link>
          )}
        </Box>
      )}
    </>
  );
};

const Parties = ({ record }: { record: RequestListItem }) => (
  <Table size="small" data-testid="party-table" sx={{ bgcolor: 'background.default' }}>
    <TableHead>
      <TableRow>
        {COLUMNS.map((name) => (
          <TableCell key={name} sx={{ fontWeight: 600 }}>
            {name}
          </TableCell>
        ))}
      </TableRow>
    </TableHead>
    <TableBody>
      {record.data.map((party) => (
        <TableRow key={party.order} data-testid={`party-${party.order}`}>
          <TableCell>{party.name}</TableCell>
          <TableCell>{party.email}</TableCell>
          <TableCell>
            <DocLink href={party.uploadUrl} label="Original document" />
          </TableCell>
          <TableCell>
            {party.downloadUrl ? <DocLink href={party.downloadUrl} label="Signed document" /> : Messages.notGenerated}
          </TableCell>
          <TableCell>{party.sign_url ? <DocLink href={party.sign_url} label="Sign Url" /> : '-'}</TableCell>
          <TableCell>
            <PartyStatus party={party} />
          </TableCell>
          <TableCell>{party.status === 'in-progress' ? <ResendInvite party={party} /> : '-'}</TableCell>
        </TableRow>
      ))}
    </TableBody>
  </Table>
);

export default PartyTable;
