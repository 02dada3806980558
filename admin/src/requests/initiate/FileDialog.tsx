import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import type { ChangeEvent } from 'react';
import { checkPdfFile } from './form';
import { useMessageText, useText } from '../../i18n/useText';

/**
 * The native file input, kept for the browser's file picker (and for drop-in tests) but hidden behind the console's
 * own 'Choose File' button: no native control, outline or 'No file chosen' text shows (issue 18, point 16).
 */
const HIDDEN_INPUT = {
  // Strings: in sx, a number up to 1 is a fraction of the parent (width: 1 is 100 %).
  position: 'absolute',
  width: '1px',
  height: '1px',
  padding: 0,
  margin: '-1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  clipPath: 'inset(50%)',
  whiteSpace: 'nowrap',
  border: 0,
  opacity: 0,
} as const;

/** The file dialog (spec section 2): its two notes, Cancel and Select; the client-side checks run on Select. */
const FileDialog = ({
  open,
  onCancel,
  onSelect,
}: {
  open: boolean;
  onCancel: () => void;
  onSelect: (file: File) => void;
}) => {
  const t = useText();
  const messageText = useMessageText();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState('');
  const close = () => {
    setFile(null);
    setError('');
    onCancel();
  };
  const select = () => {
    if (!file) {
      setError(t('esign.invalidPdf'));
      return;
    }
    const problem = checkPdfFile(file);
    if (problem) {
      setError(problem);
      return;
    }
    setError('');
    setFile(null);
    onSelect(file);
  };
  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="sm">
      <DialogTitle>{t('esign.chooseFile')}</DialogTitle>
      <DialogContent>
        <Typography variant="body2">{t('esign.fileNoteOnlyPdf')}</Typography>
        <Typography variant="body2" sx={{ mb: 2 }}>
          {t('esign.fileNoteMaxSize')}
        </Typography>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
          {/* The label opens the picker; the input inside is the control (keyboard focus, its name), so the label is
              not a second button: the focus ring shows on it when the input has focus. */}
          <Button
            component="label"
            role={undefined}
            tabIndex={-1}
            variant="outlined"
            startIcon={<UploadFileIcon />}
            data-testid="choose-file"
            sx={{ '&:has(input:focus-visible)': { outline: 2, outlineColor: 'primary.main', outlineOffset: 2 } }}
          >
            {t('esign.chooseFile')}
            <Box
              component="input"
              data-testid="file-input"
              type="file"
              accept="application/pdf,.pdf"
              sx={HIDDEN_INPUT}
              onChange={(e: ChangeEvent<HTMLInputElement>) => {
                setFile(e.target.files?.[0] ?? null);
                setError('');
                // The same file may be chosen again after a refusal.
                e.target.value = '';
              }}
            />
          </Button>
          <Typography
            variant="body2"
            color="text.secondary"
            data-testid="chosen-file"
            sx={{ overflowWrap: 'anywhere' }}
          >
            {file?.name ?? ''}
          </Typography>
        </Box>
        <Typography role="alert" color="error" sx={{ mt: 1, minHeight: '1.5em' }} data-testid="file-error">
          {error && messageText(error)}
        </Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{t('esign.cancelButton')}</Button>
        <Button variant="contained" onClick={select}>
          {t('esign.selectButton')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

export default FileDialog;
