import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Box, Button } from '@mui/material';
import type { ChangeEvent, ReactNode } from 'react';

/**
 * The native file input, kept for the browser's file picker (and for drop-in tests) but hidden behind the console's
 * own button: no native control, outline or 'No file chosen' text shows (issue 18, point 16).
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

/**
 * A button that chooses a file (the file dialog's PDF, the logo, the seal's PKCS#12). The label opens the picker; the
 * input inside is the control (keyboard focus, its name), so the label is not a second button: the focus ring shows
 * on it when the input has focus. The same file may be chosen again (after a refusal).
 */
const FileButton = ({
  label,
  accept,
  onFile,
  disabled,
  icon = <UploadFileIcon />,
  buttonTestId,
  inputTestId,
  describedBy,
}: {
  label: string;
  accept: string;
  onFile: (file: File | null) => void;
  disabled?: boolean;
  icon?: ReactNode;
  buttonTestId?: string;
  inputTestId: string;
  describedBy?: string;
}) => (
  <Button
    component="label"
    role={undefined}
    tabIndex={-1}
    variant="outlined"
    startIcon={icon}
    disabled={disabled}
    data-testid={buttonTestId}
    sx={{ '&:has(input:focus-visible)': { outline: 2, outlineColor: 'primary.main', outlineOffset: 2 } }}
  >
    {label}
    <Box
      component="input"
      data-testid={inputTestId}
      type="file"
      accept={accept}
      aria-describedby={describedBy}
      sx={HIDDEN_INPUT}
      onChange={(event: ChangeEvent<HTMLInputElement>) => {
        const file = event.target.files?.[0] ?? null;
        event.target.value = '';
        onFile(file);
      }}
    />
  </Button>
);

export default FileButton;
