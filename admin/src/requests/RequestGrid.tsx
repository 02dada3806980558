import { Limits } from '@esign/contract';
import type { ReactNode } from 'react';
import { Datagrid, List, Pagination, SearchInput, TextField } from 'react-admin';
import { KeyboardExpandBody } from '../components/KeyboardRows';
import TimeField from '../components/TimeField';
import { useText } from '../i18n/useText';
import BulkActions from './BulkActions';
import PartyTable from './PartyTable';

/**
 * The one datagrid of requests and drafts (spec section 2: "Delete, selection and pagination behave as on the
 * dashboard"): newest first by the time each was sent or saved, searched by the server, 5 or 10 rows a page, each row
 * expanding into its party table, a selection toolbar (delete; duplicate for sent requests). The two lists differ only
 * in the columns around Ref ID, file name and timestamp, and in what an empty list shows.
 *
 * The list keeps its state to itself (no store, nothing in the address): the specification's addresses carry no query.
 * Column labels are catalogue keys (react-admin translates them).
 */
const RequestGrid = ({
  resource,
  title,
  duplicate,
  status,
  tail,
  empty,
  expand = <PartyTable />,
  testId,
}: {
  resource: 'requests' | 'drafts';
  /** The page's title (react-admin's <Title>, the document title). */
  title: string;
  /** The selection toolbar offers Duplicate (the dashboard's, not the drafts'). */
  duplicate: boolean;
  /** A column after Ref ID (the drafts' 'Draft'). */
  status?: ReactNode;
  /** The last column (the dashboard's progress, the drafts' Edit/Submit). */
  tail: ReactNode;
  /** What the list shows with no rows. */
  empty: ReactNode;
  expand?: ReactNode;
  testId?: string;
}) => {
  const t = useText();
  // Search: digits match a Ref ID exactly, other text file names (the server decides).
  const filters = [<SearchInput key="q" source="q" alwaysOn placeholder={t('esign.searchPlaceholder')} />];
  return (
    <List
      resource={resource}
      title={title}
      actions={false}
      filters={filters}
      perPage={Limits.pageSizes[0]}
      pagination={<Pagination rowsPerPageOptions={[...Limits.pageSizes]} />}
      sort={{ field: 'timestamp', order: 'DESC' }}
      empty={false}
      disableSyncWithLocation
      storeKey={false}
      component="div"
    >
      <Datagrid
        rowClick="expand"
        expand={expand}
        body={KeyboardExpandBody}
        bulkActionButtons={<BulkActions duplicate={duplicate} />}
        empty={empty}
        data-testid={testId}
      >
        <TextField source="refId" label="console.common.refId" sortable={false} />
        {status}
        <TextField source="filename" label="console.common.fileName" sortable={false} />
        <TimeField source="timestamp" label="console.common.timestamp" />
        {tail}
      </Datagrid>
    </List>
  );
};

export default RequestGrid;
