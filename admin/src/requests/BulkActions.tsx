import { Messages } from '@esign/contract';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/Delete';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, IconButton, Tooltip } from '@mui/material';
import { useState } from 'react';
import { useListContext, useNotify, useRefresh, useUnselectAll } from 'react-admin';
import { errorText, orgId, v1 } from '../api';
import WaitBackdrop from '../components/WaitBackdrop';

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

/**
 * The selection toolbar of the dashboard and the drafts: delete ('Delete row') and, on the dashboard, duplicate, each
 * after its confirmation, with its loader text; one /v1 call per selected row (spec section 7).
 */
const BulkActions = ({ duplicate = true }: { duplicate?: boolean }) => {
  const { selectedIds, resource } = useListContext();
  const unselectAll = useUnselectAll(resource);
  const refresh = useRefresh();
  const notify = useNotify();
  const [asking, setAsking] = useState<Action | null>(null);
  const [running, setRunning] = useState<Action | null>(null);

  const run = async (action: Action) => {
    setAsking(null);
    setRunning(action);
    const path = action === 'delete' ? 'deleteRef' : 'duplicateRef';
    let failed = 0;
    let message: string | null = null;
    for (const id of selectedIds) {
      try {
        await v1(`/v1/${path}/${encodeURIComponent(orgId())}/${encodeURIComponent(String(id))}`);
      } catch (error) {
        failed++;
        message = errorText(error, Messages.internalError);
      }
    }
    setRunning(null);
    unselectAll();
    refresh();
    if (failed) notify(message ?? Messages.internalError, { type: 'error' });
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
