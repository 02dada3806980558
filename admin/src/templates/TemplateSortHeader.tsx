import { TableCell, TableSortLabel } from '@mui/material';
import type { ReactNode } from 'react';
import type { SortPayload } from 'react-admin';
import type { TemplateSortField } from './types';

/** A column header that sorts the table by `field` when clicked (ascending first, then flipping), on the server. */
const TemplateSortHeader = ({
  field,
  sort,
  onSort,
  align,
  children,
}: {
  field: TemplateSortField;
  sort: SortPayload | null;
  onSort: (field: TemplateSortField) => void;
  align?: 'left' | 'right';
  children: ReactNode;
}) => {
  const active = sort?.field === field;
  const direction = active && sort.order === 'DESC' ? 'desc' : 'asc';
  return (
    <TableCell
      align={align}
      sortDirection={active ? direction : false}
      aria-sort={active ? (direction === 'asc' ? 'ascending' : 'descending') : undefined}
      sx={{ fontWeight: 600 }}
    >
      <TableSortLabel active={active} direction={direction} onClick={() => onSort(field)}>
        {children}
      </TableSortLabel>
    </TableCell>
  );
};

export default TemplateSortHeader;
