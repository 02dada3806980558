import ClientLayout from '../layout/ClientLayout';

/** /list: the client-login variant the specification lists without a purpose; only the client layout. */
const ClientList = () => <ClientLayout />;

export default ClientList;
