import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import FileButton from '../../components/FileButton';
import { useState } from 'react';
import { checkPdfFile } from './form';
import { useMessageText, useText } from '../../i18n/useText';

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
          <FileButton
            label={t('esign.chooseFile')}
            accept="application/pdf,.pdf"
            buttonTestId="choose-file"
            inputTestId="file-input"
            onFile={(chosen) => {
              setFile(chosen);
              setError('');
            }}
          />
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
