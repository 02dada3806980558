import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteIcon from '@mui/icons-material/Delete';
import { IconButton, Tooltip } from '@mui/material';
import { useState } from 'react';
import { useListContext, useRefresh } from 'react-admin';
import WaitBackdrop from '../components/WaitBackdrop';
import { useText } from '../i18n/useText';
import { Confirm, useRequestActions, type RequestAction } from './useRequestActions';

/**
 * The selection toolbar of the dashboard and the drafts: delete ('Delete row') and, on the dashboard, duplicate, each
 * after its confirmation, with its loader text while the calls run, then a toast. The selection clears.
 */
const BulkActions = ({ duplicate = true }: { duplicate?: boolean }) => {
  // The list's own selection (the lists keep it outside the store: storeKey={false}), cleared after each action.
  const { selectedIds, onUnselectItems } = useListContext();
  const refresh = useRefresh();
  const t = useText();
  const { run, running, loaderText } = useRequestActions();
  const [asking, setAsking] = useState<RequestAction | null>(null);

  const confirmed = async (action: RequestAction) => {
    setAsking(null);
    await run(action, selectedIds);
    onUnselectItems();
    refresh();
  };

  return (
    <>
      {duplicate && (
        <Tooltip title={t('console.common.duplicate')}>
          <IconButton aria-label={t('console.common.duplicate')} color="primary" onClick={() => setAsking('duplicate')}>
            <ContentCopyIcon />
          </IconButton>
        </Tooltip>
      )}
      <Tooltip title={t('esign.deleteRow')}>
        <IconButton aria-label={t('esign.deleteRow')} color="error" onClick={() => setAsking('delete')}>
          <DeleteIcon />
        </IconButton>
      </Tooltip>
      <Confirm
        open={asking !== null}
        text={asking === 'duplicate' ? t('esign.duplicateConfirm') : t('esign.deleteConfirm')}
        onYes={() => void confirmed(asking as RequestAction)}
        onNo={() => setAsking(null)}
      />
      <WaitBackdrop open={running !== null} text={loaderText} />
    </>
  );
};

export default BulkActions;
