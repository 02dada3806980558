import { AdminMessages, StaffRoutes, cancelRequestSchema, inputMessage } from '@esign/contract';
import type { RequestListItem } from '@esign/contract';
import BlockIcon from '@mui/icons-material/Block';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/Delete';
import ReplayIcon from '@mui/icons-material/Replay';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import { TopToolbar, useDataProvider, useRecordContext } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useCall } from '../../components/useCall';
import WaitBackdrop from '../../components/WaitBackdrop';
import type { ConsoleDataProvider } from '../../dataProvider';
import { useText } from '../../i18n/useText';
import { Confirm, useRequestActions, type RequestAction } from '../useRequestActions';

/** Cancel asks why (optional, kept in the audit trail and told to the parties) and confirms. */
const CancelDialog = ({
  open,
  busy,
  onCancel,
  onClose,
}: {
  open: boolean;
  busy: boolean;
  onCancel: (reason: string) => void;
  onClose: () => void;
}) => {
  const t = useText();
  const [reason, setReason] = useState('');
  const problem = inputMessage(cancelRequestSchema, { reason });
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="cancel-title" aria-describedby="cancel-text">
      <DialogTitle id="cancel-title">{t('console.request.cancelTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText id="cancel-text" sx={{ mb: 2 }}>
          {t('console.request.cancelText')}
        </DialogContentText>
        <TextField
          label={t('console.request.cancelReason')}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          multiline
          minRows={2}
          fullWidth
          error={Boolean(problem)}
          helperText={problem ?? t('console.request.cancelReasonHelp')}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {t('console.request.keep')}
        </Button>
        <Button
          color="error"
          variant="contained"
          disabled={busy || Boolean(problem)}
          onClick={() => onCancel(reason.trim())}
        >
          {t('console.request.cancelConfirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

/**
 * The request page's actions: duplicate and delete as the dashboard does them (its confirmations, loaders and
 * toasts; after a delete the dashboard), cancel for a request in progress (POST /api/requests/{id}/cancel) and, when
 * the seal failed, seal again (POST /api/requests/{id}/reseal).
 */
const RequestShowActions = () => {
  const record = useRecordContext<RequestListItem>();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const navigate = useNavigate();
  const t = useText();
  const { run, running, loaderText } = useRequestActions();
  const [asking, setAsking] = useState<RequestAction | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const { call, busy } = useCall();
  if (!record) return <TopToolbar />;

  const confirmed = async (action: RequestAction) => {
    setAsking(null);
    const done = await run(action, [record.refId]);
    if (action === 'delete' && done) navigate(StaffRoutes.dashboard);
  };

  return (
    <TopToolbar sx={{ flexWrap: 'wrap' }}>
      {record.seal_error && (
        <Button
          startIcon={<ReplayIcon />}
          disabled={busy}
          onClick={() =>
            void call(
              () => dataProvider.resealRequest(record.refId),
              () => AdminMessages.resealQueued,
            )
          }
        >
          {t('console.request.reseal')}
        </Button>
      )}
      {record.request_status === 'in-progress' && (
        <Button color="error" startIcon={<BlockIcon />} disabled={busy} onClick={() => setCancelling(true)}>
          {t('console.request.cancel')}
        </Button>
      )}
      <Button startIcon={<ContentCopyIcon />} onClick={() => setAsking('duplicate')}>
        {t('console.common.duplicate')}
      </Button>
      <Button color="error" startIcon={<DeleteIcon />} onClick={() => setAsking('delete')}>
        {t('console.request.delete')}
      </Button>
      <Box>
        <Confirm
          open={asking !== null}
          text={asking === 'duplicate' ? t('esign.duplicateConfirm') : t('esign.deleteConfirm')}
          onYes={() => void confirmed(asking as RequestAction)}
          onNo={() => setAsking(null)}
        />
        <CancelDialog
          open={cancelling}
          busy={busy}
          onClose={() => setCancelling(false)}
          onCancel={(reason) =>
            void call(
              () => dataProvider.cancelRequest(record.refId, reason),
              () => AdminMessages.requestCancelled,
            ).then((answer) => answer && setCancelling(false))
          }
        />
        <WaitBackdrop open={running !== null} text={loaderText} />
      </Box>
    </TopToolbar>
  );
};

export default RequestShowActions;
