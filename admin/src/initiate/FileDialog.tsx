import { Messages } from '@esign/contract';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import type { ChangeEvent } from 'react';
import { checkPdfFile } from './form';

/**
 * The native file input, kept for the browser's file picker (and for drop-in tests) but hidden behind the console's
 * own 'Choose File' button: no native control, outline or 'No file chosen' text shows (issue 18, point 16).
 */
const HIDDEN_INPUT = {
  position: 'absolute',
  width: 1,
  height: 1,
  padding: 0,
  margin: -1,
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
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState('');
  const close = () => {
    setFile(null);
    setError('');
    onCancel();
  };
  const select = () => {
    if (!file) {
      setError(Messages.invalidPdf);
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
      <DialogTitle>{Messages.chooseFile}</DialogTitle>
      <DialogContent>
        <Typography variant="body2">{Messages.fileNoteOnlyPdf}</Typography>
        <Typography variant="body2" sx={{ mb: 2 }}>
          {Messages.fileNoteMaxSize}
        </Typography>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
          <Button component="label" variant="outlined" startIcon={<UploadFileIcon />} data-testid="choose-file">
            {Messages.chooseFile}
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
          {error}
        </Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{Messages.cancelButton}</Button>
        <Button variant="contained" onClick={select}>
          {Messages.selectButton}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

export default FileDialog;
