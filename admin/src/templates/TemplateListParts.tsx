import { Box, CircularProgress, TableCell, TablePagination, TableRow } from '@mui/material';
import type { ReactNode } from 'react';
import { FilterLiveForm, SearchInput, useListContext } from 'react-admin';
import { useText } from '../i18n/useText';

/**
 * The template tables' search box, as the dashboard's: the name contains the text (the server searches, 500 ms after
 * the last key). For tests: the textbox with the placeholder t('esign.searchPlaceholder').
 */
export const TemplateSearch = () => {
  const t = useText();
  return (
    <Box sx={{ mb: 1 }}>
      <FilterLiveForm>
        <SearchInput source="q" placeholder={t('esign.searchPlaceholder')} />
      </FilterLiveForm>
    </Box>
  );
};

/** The template tables' pages (react-admin's page is 1-based, the table's 0-based); nothing while there are no rows. */
export const TemplatePagination = ({ rowsPerPageOptions }: { rowsPerPageOptions: readonly number[] }) => {
  const { total, page, perPage, setPage, setPerPage, isPending } = useListContext();
  if (isPending || !total) return null;
  const last = Math.max(0, Math.ceil(total / perPage) - 1);
  return (
    <TablePagination
      component="div"
      count={total}
      page={Math.min(page - 1, last)}
      rowsPerPage={perPage}
      rowsPerPageOptions={[...rowsPerPageOptions]}
      onPageChange={(_, next) => setPage(next + 1)}
      onRowsPerPageChange={(event) => setPerPage(Number(event.target.value))}
    />
  );
};

/**
 * The template tables' body while it has no rows to show: a spinner while the page loads, the empty text (for tests:
 * `emptyTestId`) when there is nothing; otherwise the rows given.
 */
export const TemplateRowsOr = ({
  pending,
  empty,
  columns,
  emptyText,
  emptyTestId,
  compact = false,
  children,
}: {
  pending: boolean;
  empty: boolean;
  columns: number;
  emptyText: string;
  emptyTestId: string;
  /** The picker's dialog: less room around the spinner and the text. */
  compact?: boolean;
  children: ReactNode;
}) => {
  const py = compact ? 3 : 4;
  if (pending)
    return (
      <TableRow>
        <TableCell colSpan={columns} align="center" sx={{ py }}>
          <CircularProgress size={compact ? 24 : 28} />
        </TableCell>
      </TableRow>
    );
  if (empty)
    return (
      <TableRow>
        <TableCell colSpan={columns} align="center" data-testid={emptyTestId} sx={{ py, color: 'text.secondary' }}>
          {emptyText}
        </TableCell>
      </TableRow>
    );
  return <>{children}</>;
};
