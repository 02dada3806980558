import { Messages, StaffRoutes } from '@esign/contract';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  IconButton,
  Link,
  Tooltip,
} from '@mui/material';
import { useState } from 'react';
import { useCloseNotification, useListContext, useNotify, useRefresh } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText, orgId, v1 } from '../api';
import WaitBackdrop from '../components/WaitBackdrop';
import { fill } from './placement/geometry';
import { startEditingDraft } from '../session';

type Action = 'delete' | 'duplicate';

/** The spec's confirmation dialog: its question, Yes and No. */
const Confirm = ({ open, text, onYes, onNo }: { open: boolean; text: string; onYes: () => void; onNo: () => void }) => (
  <Dialog open={open} onClose={onNo} aria-describedby="confirm-text">
    <DialogContent>
      <DialogContentText id="confirm-text">{text}</DialogContentText>
    </DialogContent>
    <DialogActions>
      <Button onClick={onNo}>No</Button>
      <Button onClick={onYes} variant="contained" autoFocus>
        Yes
      </Button>
    </DialogActions>
  </Dialog>
);

/** The toast after a duplicate: where each copy is, and a link that opens it in Edit/Submit. */
const DuplicatedToast = ({ refIds, onOpen }: { refIds: number[]; onOpen: (refId: number) => void }) => {
  const close = useCloseNotification();
  return (
    <Alert severity="success" variant="filled" data-testid="duplicated-toast" sx={{ minWidth: 288 }}>
      {refIds.map((refId) => (
        <Box key={refId} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'baseline', columnGap: 1 }}>
          <span>{fill(Messages.duplicatedAs, { refId })}</span>
          <Link
            href={StaffRoutes.requestInitiate}
            color="inherit"
            sx={{ fontWeight: 700 }}
            aria-label={`${Messages.editSubmit} ${refId}`}
            onClick={(event) => {
              event.preventDefault();
              close();
              onOpen(refId);
            }}
          >
            {Messages.editSubmit}
          </Link>
        </Box>
      ))}
    </Alert>
  );
};

/**
 * The selection toolbar of the dashboard and the drafts: delete ('Delete row') and, on the dashboard, duplicate, each
 * after its confirmation, with its loader text while the calls run (one /v1 call per selected row, spec section 7),
 * then a toast: where the copies are (with a link to each) or how many rows were deleted. The selection clears.
 */
const BulkActions = ({ duplicate = true }: { duplicate?: boolean }) => {
  // The list's own selection (the lists keep it outside the store: storeKey={false}), cleared after each action.
  const { selectedIds, onUnselectItems } = useListContext();
  const refresh = useRefresh();
  const notify = useNotify();
  const navigate = useNavigate();
  const [asking, setAsking] = useState<Action | null>(null);
  const [running, setRunning] = useState<Action | null>(null);

  const openDraft = (refId: number) => {
    startEditingDraft(refId);
    navigate(StaffRoutes.requestInitiate);
  };

  const run = async (action: Action) => {
    setAsking(null);
    setRunning(action);
    const path = action === 'delete' ? 'deleteRef' : 'duplicateRef';
    const copies: number[] = [];
    let done = 0;
    let failure: string | null = null;
    for (const id of selectedIds) {
      try {
        const answer = await v1<{ refId?: number }>(
          `/v1/${path}/${encodeURIComponent(orgId())}/${encodeURIComponent(String(id))}`,
        );
        done++;
        if (action === 'duplicate' && typeof answer?.refId === 'number') copies.push(answer.refId);
      } catch (error) {
        failure = errorText(error, Messages.internalError);
      }
    }
    setRunning(null);
    onUnselectItems();
    refresh();
    if (action === 'duplicate' && copies.length)
      notify(<DuplicatedToast refIds={copies} onOpen={openDraft} />, { type: 'success' });
    if (action === 'delete' && done) notify(fill(Messages.deletedRows, { count: done }), { type: 'success' });
    if (failure) notify(failure, { type: 'error' });
  };

  return (
    <>
      {duplicate && (
        <Tooltip title="Duplicate">
          <IconButton aria-label="Duplicate" color="primary" onClick={() => setAsking('duplicate')}>
            <ContentCopyIcon />
          </IconButton>
        </Tooltip>
      )}
      <Tooltip title={Messages.deleteRow}>
        <IconButton aria-label={Messages.deleteRow} color="error" onClick={() => setAsking('delete')}>
          <DeleteIcon />
        </IconButton>
      </Tooltip>
      <Confirm
        open={asking !== null}
        text={asking === 'duplicate' ? Messages.duplicateConfirm : Messages.deleteConfirm}
        onYes={() => void run(asking as Action)}
        onNo={() => setAsking(null)}
      />
      <WaitBackdrop open={running !== null} text={running === 'duplicate' ? Messages.duplicating : Messages.deleting} />
    </>
  );
};

export default BulkActions;
