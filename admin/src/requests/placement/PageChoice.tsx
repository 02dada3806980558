import {
  Box,
  Checkbox,
  FormControl,
  FormControlLabel,
  InputLabel,
  ListItemText,
  MenuItem,
  Select,
} from '@mui/material';
import { allPages } from './geometry';
import { useText } from '../../i18n/useText';

const LABEL_ID = 'placement-pages-label';

/**
 * Where the current signer's box goes: 'Apply signatures in all pages', or the pages picked in 'Select pages to be
 * signed' (disabled, and showing every page, while apply-all is on).
 */
const PageChoice = ({
  totalPages,
  pages,
  applyAll,
  disabled,
  onPages,
  onApplyAll,
}: {
  totalPages: number;
  pages: number[];
  applyAll: boolean;
  disabled: boolean;
  onPages: (pages: number[]) => void;
  onApplyAll: (applyAll: boolean) => void;
}) => {
  const t = useText();
  const every = allPages(totalPages);
  const shown = applyAll ? every : pages;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2 }}>
      <FormControlLabel
        control={
          <Checkbox
            checked={applyAll}
            disabled={disabled}
            onChange={(event) => onApplyAll(event.target.checked)}
            data-testid="apply-all"
          />
        }
        label={t('esign.applyAllPages')}
      />
      <FormControl size="small" sx={{ minWidth: 260, maxWidth: 420 }} disabled={disabled || applyAll}>
        <InputLabel id={LABEL_ID}>{t('esign.selectPages')}</InputLabel>
        <Select<number[]>
          labelId={LABEL_ID}
          multiple
          value={shown}
          label={t('esign.selectPages')}
          data-testid="page-select"
          renderValue={(selected) => selected.join(', ')}
          onChange={(event) => {
            const value = event.target.value;
            const list = typeof value === 'string' ? value.split(',').map(Number) : value;
            onPages([...new Set(list)].filter((page) => page >= 1 && page <= totalPages).sort((a, b) => a - b));
          }}
          MenuProps={{ slotProps: { paper: { sx: { maxHeight: 360 } } } }}
        >
          {every.map((page) => (
            <MenuItem key={page} value={page} dense>
              <Checkbox size="small" checked={shown.includes(page)} sx={{ py: 0 }} />
              <ListItemText primary={page} />
            </MenuItem>
          ))}
        </Select>
      </FormControl>
    </Box>
  );
};

export default PageChoice;
