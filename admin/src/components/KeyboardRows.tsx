import type { KeyboardEvent } from 'react';
import { DatagridBody, DatagridRow } from 'react-admin';
import type { DatagridBodyProps, DatagridRowProps } from 'react-admin';

/**
 * A datagrid row that expands by keyboard too. react-admin's expand icon is taken out of the tab order (tabIndex -1,
 * aria-hidden), so a row that expands on a click could not be opened without a mouse: here the row itself takes the
 * focus and Enter or Space toggles it (as a click on the row does, rowClick="expand"). Keys pressed on a control inside
 * the row (its checkbox, a link) stay that control's. (aria-expanded is not allowed on a row of a plain table.)
 */
const KeyboardRow = (props: DatagridRowProps) => {
  const onKeyDown = (event: KeyboardEvent<HTMLTableRowElement>) => {
    if (event.target !== event.currentTarget || (event.key !== 'Enter' && event.key !== ' ')) return;
    event.preventDefault();
    event.currentTarget.click();
  };
  return (
    <DatagridRow
      {...props}
      tabIndex={0}
      onKeyDown={onKeyDown}
      sx={{ '&:focus-visible': { outline: 2, outlineColor: 'primary.main', outlineOffset: -2 } }}
    />
  );
};

/** The body of a datagrid whose rows expand (rowClick="expand"): each row reachable and opened by keyboard. */
export const KeyboardExpandBody = (props: DatagridBodyProps) => <DatagridBody {...props} row={<KeyboardRow />} />;
