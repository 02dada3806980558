import { Messages } from '@esign/contract';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import { checkPdfFile } from './form';

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
        <Box component="label" sx={{ display: 'inline-block' }}>
          <input
            data-testid="file-input"
            type="file"
            accept="application/pdf,.pdf"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setError('');
            }}
          />
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
