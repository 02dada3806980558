import { TableCell, TableHead, TableRow } from '@mui/material';
import type { TextKey } from '../i18n/catalogue';
import { useText } from '../i18n/useText';

/** A table's header: one bold cell per column, named by its catalogue key. */
const HeadRow = ({ columns }: { columns: readonly TextKey[] }) => {
  const t = useText();
  return (
    <TableHead>
      <TableRow>
        {columns.map((key) => (
          <TableCell key={key} sx={{ fontWeight: 600 }}>
            {t(key)}
          </TableCell>
        ))}
      </TableRow>
    </TableHead>
  );
};

export default HeadRow;
