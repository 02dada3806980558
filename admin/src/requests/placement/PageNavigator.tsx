import NavigateBeforeIcon from '@mui/icons-material/NavigateBefore';
import NavigateNextIcon from '@mui/icons-material/NavigateNext';
import { Box, IconButton, Typography } from '@mui/material';
import { useText } from '../../i18n/useText';

/** Previous / next page around 'Page n /total'; each button is named after the page it shows. */
const PageNavigator = ({ page, total, onPage }: { page: number; total: number; onPage: (page: number) => void }) => {
  const t = useText();
  const pageText = (shown: number, pages: number) => t('esign.pageOfTotal', { page: shown, total: pages });
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', gap: 1, mb: 1 }}>
      <IconButton
        data-testid="page-previous"
        aria-label={pageText(Math.max(1, page - 1), total)}
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        <NavigateBeforeIcon />
      </IconButton>
      <Typography data-testid="page-of-total" sx={{ minWidth: 110, textAlign: 'center' }}>
        {pageText(page, total)}
      </Typography>
      <IconButton
        data-testid="page-next"
        aria-label={pageText(Math.min(total, page + 1), total)}
        disabled={page >= total}
        onClick={() => onPage(page + 1)}
      >
        <NavigateNextIcon />
      </IconButton>
    </Box>
  );
};

export default PageNavigator;
