import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  Tooltip,
} from '@mui/material';
import { useState } from 'react';
import { useText } from '../i18n/useText';

/**
 * A secret the API shows once (a new API key, a webhook's signing secret): in a dialog, selectable, with a copy button,
 * and the warning that it cannot be read again. Done closes it.
 */
const ShownOnce = ({
  open,
  title,
  warning,
  value,
  onDone,
}: {
  open: boolean;
  title: string;
  warning: string;
  value: string;
  onDone: () => void;
}) => {
  const t = useText();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a refusal): the value stays selectable in the box.
      setCopied(false);
    }
  };
  return (
    <Dialog open={open} aria-labelledby="shown-once-title" aria-describedby="shown-once-text" maxWidth="sm" fullWidth>
      <DialogTitle id="shown-once-title">{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id="shown-once-text" component="div">
          <Alert severity="warning" sx={{ mb: 2 }}>
            {warning}
          </Alert>
        </DialogContentText>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Box
            component="output"
            data-testid="shown-once"
            sx={{
              flex: 1,
              fontFamily: 'monospace',
              fontSize: 14,
              p: 1.5,
              bgcolor: 'action.hover',
              borderRadius: 1,
              overflowWrap: 'anywhere',
              userSelect: 'all',
            }}
          >
            {value}
          </Box>
          <Tooltip title={copied ? t('console.common.copied') : t('console.common.copy')}>
            <IconButton aria-label={t('console.common.copy')} onClick={() => void copy()} color="primary">
              <ContentCopyIcon />
            </IconButton>
          </Tooltip>
        </Box>
        <Box role="status" sx={{ minHeight: '1.5em', mt: 1, fontSize: 14, color: 'success.dark' }}>
          {copied ? t('console.common.copied') : ''}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onDone}>
          {t('console.apiKeys.done')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

export default ShownOnce;
