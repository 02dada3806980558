import { Messages, StaffRoutes } from '@esign/contract';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogContentText, Link } from '@mui/material';
import { useState } from 'react';
import type { Identifier } from 'react-admin';
import { useCloseNotification, useNotify } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText, orgId, v1 } from '../api';
import { useText } from '../i18n/useText';
import { startEditingDraft } from '../session';

export type RequestAction = 'delete' | 'duplicate';

/** The spec's confirmation dialog: its question, Yes and No. */
export const Confirm = ({
  open,
  text,
  onYes,
  onNo,
}: {
  open: boolean;
  text: string;
  onYes: () => void;
  onNo: () => void;
}) => {
  const t = useText();
  return (
    <Dialog open={open} onClose={onNo} aria-describedby="confirm-text">
      <DialogContent>
        <DialogContentText id="confirm-text">{text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onNo}>{t('console.common.no')}</Button>
        <Button onClick={onYes} variant="contained" autoFocus>
          {t('console.common.yes')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

/** The toast after a duplicate: where each copy is, and a link that opens it in Edit/Submit. */
const DuplicatedToast = ({ refIds, onOpen }: { refIds: number[]; onOpen: (refId: number) => void }) => {
  const close = useCloseNotification();
  const t = useText();
  return (
    <Alert severity="success" variant="filled" data-testid="duplicated-toast" sx={{ minWidth: 288 }}>
      {refIds.map((refId) => (
        <Box key={refId} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'baseline', columnGap: 1 }}>
          <span>{t('esign.duplicatedAs', { refId })}</span>
          <Link
            href={StaffRoutes.requestInitiate}
            color="inherit"
            sx={{ fontWeight: 700 }}
            aria-label={`${t('esign.editSubmit')} ${refId}`}
            onClick={(event) => {
              event.preventDefault();
              close();
              onOpen(refId);
            }}
          >
            {t('esign.editSubmit')}
          </Link>
        </Box>
      ))}
    </Alert>
  );
};

/**
 * Delete and duplicate as the dashboard does them (spec section 7: one /v1 call per request), for the selection
 * toolbar and for a request's page: the loader text while the calls run, then a toast: where the copies are (with a
 * link that opens each in Edit/Submit) or how many were deleted, and the first failure.
 */
export function useRequestActions() {
  const notify = useNotify();
  const navigate = useNavigate();
  const t = useText();
  const [running, setRunning] = useState<RequestAction | null>(null);

  const openDraft = (refId: number) => {
    startEditingDraft(refId);
    navigate(StaffRoutes.requestInitiate);
  };

  /** Runs the action on each request; answers how many succeeded. */
  const run = async (action: RequestAction, ids: readonly Identifier[]): Promise<number> => {
    setRunning(action);
    const path = action === 'delete' ? 'deleteRef' : 'duplicateRef';
    const copies: number[] = [];
    let done = 0;
    let failure: string | null = null;
    for (const id of ids) {
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
    if (action === 'duplicate' && copies.length)
      notify(<DuplicatedToast refIds={copies} onOpen={openDraft} />, { type: 'success' });
    if (action === 'delete' && done) notify(t('esign.deletedRows', { count: done }), { type: 'success' });
    if (failure) notify(failure, { type: 'error' });
    return done;
  };

  const loaderText = running === 'duplicate' ? t('esign.duplicating') : running ? t('esign.deleting') : undefined;
  return { run, running, loaderText };
}
